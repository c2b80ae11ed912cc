import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { createPrivateFile } from '../../prisma/engine/sqlite-files.js';
import type { PrismaClient as SqliteClient } from '../generated/sqlite/client.js';
import type { DatabaseConnections } from './database-connections.js';

/**
 * Both generated clients expose the same models (a test keeps the two schemas identical), so
 * the rest of the code uses the SQLite client's type for either.
 */
export type DatabaseClient = InstanceType<typeof SqliteClient>;

/**
 * Creates the Prisma client for the database in use, with the matching driver adapter: on SQLite
 * a connection of its own to the file (whose folder is created on first start, so `npm start`
 * works on a fresh clone); on PostgreSQL the main pool (`PostgresPools.main`), which the stores
 * share and which is sized and ended there. Both are described by DATABASE_URL's one reader
 * (config.database), shared with prisma.config.ts and the migrator, so the service and the
 * migrations open one file, or one schema.
 */
export async function createDatabaseClient(connections: DatabaseConnections): Promise<DatabaseClient> {
  // Only this kind's client and adapter are loaded (see openDatabaseConnections).
  if (connections.kind === 'sqlite') {
    const [{ PrismaClient }, { PrismaBetterSqlite3 }] = await Promise.all([
      import('../generated/sqlite/client.js'),
      import('@prisma/adapter-better-sqlite3'),
    ]);
    const { file } = connections;
    mkdirSync(dirname(file), { recursive: true });
    // A file SQLite creates is 0644: this one holds password hashes and secrets (sqlite-files.js).
    createPrivateFile(file);
    // A busy timeout lets the CLI and a running server share the file without SQLITE_BUSY.
    return new PrismaClient({ adapter: new PrismaBetterSqlite3({ url: `file:${file}`, timeout: 5000 }) });
  }
  const [{ PrismaClient }, { PrismaPg }] = await Promise.all([
    import('../generated/postgresql/client.js'),
    import('@prisma/adapter-pg'),
  ]);
  // The schema Prisma names in its queries; the pools' search_path is the same (PostgresPools).
  const client = new PrismaClient({ adapter: new PrismaPg(connections.main.pool, { schema: connections.schema }) });
  return client as unknown as DatabaseClient;
}

/**
 * SQLite settings applied once per connection. WAL lets redirects read while links are written.
 *
 * synchronous=NORMAL (in WAL mode): a commit is acknowledged once it is in the WAL file, which
 * is fsynced at checkpoints rather than on every commit. Every acknowledged write survives a crash
 * or kill of the process (the benchmark checks this with kill -9); an operating-system crash or
 * power loss can roll back the last commits, never corrupt the database. FULL would fsync every
 * commit: one link creation is one transaction and SQLite has a single writer at a time, so
 * creations would queue behind the disk, one fsync each (docs/operations.md, "SQLite durability"). Deployments that need
 * power-loss durability for each acknowledged link should use PostgreSQL. The background
 * writer's connection (sqlite-background-writer.worker.ts) uses the same settings.
 */
export async function tuneSqlite(client: DatabaseClient): Promise<void> {
  await client.$queryRawUnsafe('PRAGMA journal_mode = WAL');
  await client.$executeRawUnsafe('PRAGMA synchronous = NORMAL');
  await client.$executeRawUnsafe('PRAGMA foreign_keys = ON');
}
