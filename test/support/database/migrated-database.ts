import { readDatabaseUrl, type DatabaseTarget } from '../../../prisma/engine/database-url.js';
import { openDatabaseConnections } from '../../../src/database/database-connections.js';
import type { PostgresPools } from '../../../src/database/postgres-pools.js';
import { createDatabaseClient, tuneSqlite, type DatabaseClient } from '../../../src/database/prisma-client.factory.js';
import type { SqliteConnections } from '../../../src/database/sqlite-connections.js';
import { prepareDatabase } from '../../../src/database/startup-migrations.js';
import { createTestDatabase } from './test-database.js';

/** A fresh database with every migration applied, reached as the service reaches it. */
export interface MigratedDatabase<Connections> {
  /** Where it is, to open more connections to it (another process's, a restart's). */
  target: DatabaseTarget;
  /** The service's connections to it (SQLite: the writer and the readers; PostgreSQL: the pools). */
  connections: Connections;
  /** A Prisma client over those connections, tuned as the service tunes it. */
  prisma: DatabaseClient;
  /** Disconnects, closes the connections and deletes the database. */
  drop(): Promise<void>;
}

/** For specs of the stores and repositories: what the service's start-up makes of a new database. */
export async function openMigratedDatabase(kind: 'sqlite'): Promise<MigratedDatabase<SqliteConnections>>;
export async function openMigratedDatabase(kind: 'postgresql'): Promise<MigratedDatabase<PostgresPools>>;
export async function openMigratedDatabase(
  kind: 'sqlite' | 'postgresql',
): Promise<MigratedDatabase<SqliteConnections | PostgresPools>> {
  const database = await createTestDatabase(kind);
  const target = readDatabaseUrl(database.url);
  await prepareDatabase(target, { migrateOnStart: true, log: () => undefined });
  const connections = await openDatabaseConnections(target);
  const prisma = await createDatabaseClient(connections);
  if (kind === 'sqlite') await tuneSqlite(prisma);
  return {
    target,
    connections,
    prisma,
    async drop() {
      await prisma.$disconnect();
      await connections.close();
      await database.drop();
    },
  };
}
