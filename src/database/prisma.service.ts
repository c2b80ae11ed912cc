import type { DatabaseClient } from './prisma-client.factory.js';

/**
 * Injection token and type of the database client. Only repositories inject it. The instance is
 * the generated Prisma client for the configured database kind (see database.module.ts).
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export abstract class PrismaService {}
// Declaration merging gives the token the client's full, typed API.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface PrismaService extends DatabaseClient {}
