import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DatabaseTarget } from '../../prisma/engine/database-url.js';
import { describeRestriction, restrictSqliteFiles } from '../../prisma/engine/sqlite-files.js';
import { createDatabase, probeDatabase, readMigrations, SchemaEngineSession } from '../../prisma/engine/wasm-engine.js';
import { MigrationError } from './migration-error.js';

export interface PrepareDatabaseOptions {
  /** Apply pending migrations (true) or refuse to start while some are pending (false). */
  migrateOnStart: boolean;
  log: (message: string) => void;
}

const NO_FILTERS = { externalTables: [], externalEnums: [] };

/**
 * Makes the database ready before the app's Prisma client touches it: creates the SQLite file or
 * the PostgreSQL database if missing, then applies the committed migrations with the same
 * (WebAssembly) schema engine as `prisma migrate deploy`, in this process. With
 * `migrateOnStart: false` it only checks, and throws while migrations are pending.
 *
 * Instances starting together on one PostgreSQL database are safe: the engine holds a
 * PostgreSQL advisory lock while migrating, so the others wait, then find nothing to apply.
 * Every connection opened here is closed before this resolves: that releases the lock, and the
 * SQLite file is no longer held by a second connection.
 */
export async function prepareDatabase(database: DatabaseTarget, options: PrepareDatabaseOptions): Promise<void> {
  const kind = database.kind;
  const problem = await probeDatabase(database);
  if (problem?.code === 'P1003') {
    const name = await createDatabase(database);
    options.log(`Created ${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'} database ${name}`);
  } else if (problem) {
    throw new MigrationError(`Cannot connect to the database: ${oneLine(problem.message)}`);
  }
  // A database made before its files were created 0600, or copied in with a wider mode, is the
  // owner's alone from this start on (docs/operations.md, "Backups and restore").
  if (database.kind === 'sqlite') {
    for (const restriction of restrictSqliteFiles(database.file)) options.log(describeRestriction(restriction));
  }

  const migrationsList = await readMigrations(migrationsDirectory(kind));
  const session = await SchemaEngineSession.open({ database });
  try {
    const pending = await pendingMigrations(session, migrationsList);
    if (pending.length === 0) {
      options.log('Database schema is up to date');
      return;
    }
    if (options.migrateOnStart) {
      // Only now: on SQLite, applyMigrations holds the file in EXCLUSIVE locking mode, which fails
      // (SQLITE_BUSY) while another process has it open, e.g. the CLI next to a running server.
      const { appliedMigrationNames } = (await session
        .request('applyMigrations', { migrationsList, filters: NO_FILTERS })
        .catch((error: unknown) => {
          const reason = error instanceof Error ? error.message : String(error);
          throw new MigrationError(`Applying migrations failed: ${oneLine(reason)}`);
        })) as { appliedMigrationNames: string[] };
      options.log(
        appliedMigrationNames.length > 0
          ? `Applied migrations: ${appliedMigrationNames.join(', ')}`
          : 'Database schema is up to date',
      );
      return;
    }
    throw new MigrationError(
      `The database has ${pending.length} pending migration(s): ${pending.join(', ')}. ` +
        'Run `npx prisma migrate deploy` (with the same DATABASE_URL), or start with MIGRATE_ON_START=true.',
    );
  } finally {
    await session.close();
  }
}

/** Engine messages span lines (the SQL, a hint); start-up prints one. */
function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ').trim();
}

type MigrationList = Awaited<ReturnType<typeof readMigrations>>;

interface HistoryDiagnosis {
  hasMigrationsTable: boolean;
  failedMigrationNames?: string[];
  history:
    | { diagnostic: 'databaseIsBehind'; unappliedMigrationNames: string[] }
    | { diagnostic: 'historiesDiverge'; unappliedMigrationNames: string[] }
    | { diagnostic: 'migrationsDirectoryIsBehind' }
    | null;
}

async function pendingMigrations(session: SchemaEngineSession, migrationsList: MigrationList): Promise<string[]> {
  const all = migrationsList.migrationDirectories.map((migration) => migration.path);
  const diagnosis = (await session.request('diagnoseMigrationHistory', {
    migrationsList,
    optInToShadowDatabase: false,
    filters: NO_FILTERS,
  })) as HistoryDiagnosis;
  if (!diagnosis.hasMigrationsTable) return all;
  const history = diagnosis.history;
  const unapplied = history && 'unappliedMigrationNames' in history ? history.unappliedMigrationNames : [];
  // A failed migration is not done either: applying then reports it (P3009) instead of starting
  // on a half-migrated schema.
  return [...new Set([...(diagnosis.failedMigrationNames ?? []), ...unapplied])];
}

/**
 * `prisma/<kind>/migrations` of the project. This file runs from `src/database` (tests) and from
 * `dist/src/database` (after `nest build`, which does not copy the SQL files), so look upwards
 * for the folder that holds package.json.
 */
function migrationsDirectory(kind: 'sqlite' | 'postgresql'): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error('Cannot find the project folder (with package.json) above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return join(dir, 'prisma', kind, 'migrations');
}
