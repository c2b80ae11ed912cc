// The real Prisma CLI commands, run the way a developer runs them, on the WebAssembly schema
// engine that prisma.config.ts selects (no PRISMA_SCHEMA_ENGINE_BINARY in the environment, and
// an engines mirror that cannot answer, so any download attempt fails the test).
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { committedMigrations, migratedTables } from './support/database/migrations.js';
import { describeOn, TEST_POSTGRES_URL as ADMIN_URL, withPostgres } from './support/database/test-database.js';
import { runPrismaCli } from './support/processes/prisma-cli.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

type Kind = 'sqlite' | 'postgresql';

/** A database of one kind that the CLI has not seen yet, and plain SQL access to it. */
interface Target {
  url: string;
  /** Makes the empty database exist (a SQLite file is made by the first query). */
  create(): Promise<void>;
  query(sql: string): Promise<Record<string, unknown>[]>;
  drop(): Promise<void>;
}

function sqliteTarget(dir: string, name: string): Target {
  const file = join(dir, `${name}.db`);
  return {
    url: `file:${file}`,
    create: () => {
      new Database(file).close();
      return Promise.resolve();
    },
    query: (sql) => {
      const db = new Database(file);
      try {
        const statement = db.prepare(sql);
        return Promise.resolve(
          statement.reader ? (statement.all() as Record<string, unknown>[]) : (statement.run(), []),
        );
      } finally {
        db.close();
      }
    },
    drop: () => Promise.resolve(rmSync(file, { force: true })),
  };
}

function postgresTarget(name: string): Target {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    query: (sql) => withPostgres(url.toString(), async (client) => (await client.query(sql)).rows),
    create: () => withPostgres(ADMIN_URL, (client) => client.query(`CREATE DATABASE "${name}"`)).then(() => undefined),
    drop: () =>
      withPostgres(ADMIN_URL, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}

const TABLES_SQL = {
  sqlite: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
  postgresql: "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
};

describe.each<Kind>(['sqlite', 'postgresql'])('Prisma CLI on %s, with the wasm schema engine', (kind) => {
  describeOn(kind)('commands', () => {
    const tmp = mkdtempSync(join(tmpdir(), 'shortlink-cli-'));
    const suffix = randomBytes(4).toString('hex');
    const target = (name: string) =>
      kind === 'sqlite' ? sqliteTarget(tmp, name) : postgresTarget(`shortlink_cli_${suffix}_${name}`);
    const targets: Target[] = [];
    const fresh = (name: string) => {
      const t = target(name);
      targets.push(t);
      return t;
    };
    const tables = async (t: Target) => (await t.query(TABLES_SQL[kind])).map((row) => row.name);
    /**
     * `db push` applies the schema, not the migrations, so on PostgreSQL the extension the search
     * index needs (pg_trgm, created by a migration) must exist first, as docs/operations.md says.
     */
    const readyForPush = async (t: Target) => {
      if (kind !== 'postgresql') return;
      await t.create();
      await t.query('CREATE EXTENSION pg_trgm');
    };
    /** The models' tables; SQLite adds its AUTOINCREMENT bookkeeping (click_batches.id). */
    const modelTables = migratedTables(kind);
    const appliedMigrations = async (t: Target) =>
      (
        await t.query(
          'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY migration_name',
        )
      ).map((row) => row.migration_name);

    afterAll(async () => {
      await Promise.all(targets.map((t) => t.drop()));
      rmSync(tmp, { recursive: true, force: true });
    });

    it('migrate diff prints the CREATE TABLE script', () => {
      const run = runPrismaCli(
        ['migrate', 'diff', '--from-empty', '--to-schema', `prisma/${kind}/schema.prisma`, '--script'],
        target('unused').url,
      );
      expect(run.status).toBe(0);
      expect(run.stdout).toContain('CREATE TABLE "links"');
      expect(run.stdout).toContain('CREATE TABLE "api_tokens"');
    });

    describe('on a database that does not exist yet', () => {
      const db = fresh('deploy');

      it('migrate deploy creates it and applies the committed migrations', async () => {
        const run = runPrismaCli(['migrate', 'deploy'], db.url);
        expect(run).toMatchObject({ status: 0 });
        expect(run.stdout).toContain('All migrations have been successfully applied.');
        expect(await tables(db)).toEqual(['_prisma_migrations', ...modelTables]);
        expect(await appliedMigrations(db)).toEqual(committedMigrations(kind));
      });

      it('migrate status says it is up to date', () => {
        const run = runPrismaCli(['migrate', 'status'], db.url);
        expect(run.status).toBe(0);
        expect(run.stdout).toContain('Database schema is up to date!');
      });

      it('migrate reset --force empties the data and re-applies the migrations', async () => {
        await db.query("INSERT INTO accounts (id, email) VALUES ('a1', 'a@example.com')");
        const run = runPrismaCli(['migrate', 'reset', '--force'], db.url);
        expect(run.status).toBe(0);
        expect(run.stdout).toContain('Database reset successful');
        expect(await db.query('SELECT id FROM accounts')).toEqual([]);
        expect(await appliedMigrations(db)).toEqual(committedMigrations(kind));
      });
    });

    it('migrate status fails on a database with pending migrations', async () => {
      const db = fresh('pending');
      await readyForPush(db);
      // db push creates the tables, but records no migration.
      expect(runPrismaCli(['db', 'push'], db.url).status).toBe(0);
      const run = runPrismaCli(['migrate', 'status'], db.url);
      expect(run.status).toBe(1);
      expect(run.output).toContain('have not yet been applied');
    });

    it('db push creates the tables without migrations', async () => {
      const db = fresh('push');
      await readyForPush(db);
      const run = runPrismaCli(['db', 'push'], db.url);
      expect(run.status).toBe(0);
      expect(run.stdout).toContain('Your database is now in sync with your Prisma schema');
      expect(await tables(db)).toEqual(modelTables);
    });

    it('migrate dev uses SHADOW_DATABASE_URL, emptied first on every run', async () => {
      const db = fresh('shadowed');
      const shadow = fresh('shadow');
      // A shadow database that exists and holds leftovers (a table no migration creates): the
      // engine must start from an empty one, or it would report drift, or fail replaying the
      // history onto tables that already exist.
      await shadow.create();
      await shadow.query('CREATE TABLE leftover (id INTEGER)');

      for (let run = 1; run <= 2; run++) {
        const result = runPrismaCli(['migrate', 'dev', '--name', 'nothing'], db.url, shadow.url);
        expect({ run, status: result.status, output: result.output }).toMatchObject({ run, status: 0 });
        expect(result.output).not.toMatch(/drift|reset/i);
      }
      // The shadow database was used: it holds the replayed history, not the leftover.
      expect(await tables(shadow)).toEqual(modelTables);
      expect(await appliedMigrations(db)).toEqual(committedMigrations(kind));
    });

    it('upgrading to the account link counts counts the existing links, and the triggers keep them', async () => {
      // The history up to the migration before, on a copy (see the next spec for the config).
      const LINK_COUNTS = '20261125110000_account_link_counts';
      const project = join(tmp, 'upgrade');
      cpSync(join(ROOT, 'prisma', kind), project, { recursive: true });
      rmSync(join(project, 'migrations', LINK_COUNTS), { recursive: true });
      writeFileSync(
        join(project, 'prisma.config.ts'),
        `import config from ${JSON.stringify(join(ROOT, 'prisma.config.ts'))};\n` +
          `export default { ...config, migrations: { ...config.migrations, path: ${JSON.stringify(join(project, 'migrations'))} } };\n`,
      );
      const config = ['--config', join(project, 'prisma.config.ts')];
      const db = fresh('upgrade');
      expect(runPrismaCli(['migrate', 'deploy', ...config], db.url).status).toBe(0);
      await db.query(
        "INSERT INTO accounts (id, email, created_at) VALUES ('acc-a', 'a@example.test', CURRENT_TIMESTAMP)",
      );
      await db.query(
        "INSERT INTO accounts (id, email, created_at) VALUES ('acc-b', 'b@example.test', CURRENT_TIMESTAMP)",
      );
      for (const [code, owner] of [
        ['up-a1', "'acc-a'"],
        ['up-a2', "'acc-a'"],
        ['up-anon', 'NULL'],
      ]) {
        await db.query(
          `INSERT INTO links (code, url, account_id, clicks, created_at, updated_at)
           VALUES ('${code}', 'https://example.com/', ${owner}, 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)`,
        );
      }

      cpSync(join(ROOT, 'prisma', kind, 'migrations', LINK_COUNTS), join(project, 'migrations', LINK_COUNTS), {
        recursive: true,
      });
      expect(runPrismaCli(['migrate', 'deploy', ...config], db.url).status).toBe(0);
      const counts = async () =>
        (await db.query('SELECT id, link_count FROM accounts ORDER BY id')).map((row) => [
          row.id,
          Number(row.link_count),
        ]);
      expect(await counts()).toEqual([
        ['acc-a', 2],
        ['acc-b', 0],
      ]);

      await db.query(
        `INSERT INTO links (code, url, account_id, clicks, created_at, updated_at)
         VALUES ('up-b1', 'https://example.com/', 'acc-b', 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP),
                ('up-anon2', 'https://example.com/', NULL, 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)`,
      );
      await db.query("DELETE FROM links WHERE code = 'up-a1'");
      await db.query("UPDATE links SET account_id = 'acc-b' WHERE code = 'up-a2'");
      await db.query('UPDATE links SET clicks = clicks + 1');
      expect(await counts()).toEqual([
        ['acc-a', 0],
        ['acc-b', 2],
      ]);
    });

    it('migrate dev applies the history, then creates and applies a migration for a schema change', async () => {
      // A copy of the prisma folder, so the committed migrations are never touched. Its config
      // reuses the real one (which also supplies the engine) with the copy's paths.
      const project = join(tmp, 'project');
      cpSync(join(ROOT, 'prisma', kind), project, { recursive: true });
      const schemaFile = join(project, 'schema.prisma');
      writeFileSync(
        schemaFile,
        readFileSync(schemaFile, 'utf8').replace(/^(\s*)clicks(\s+)Int .*$/m, '$&\n$1title $2String?'),
      );
      writeFileSync(
        join(project, 'prisma.config.ts'),
        `import config from ${JSON.stringify(join(ROOT, 'prisma.config.ts'))};\n` +
          `export default { ...config, schema: ${JSON.stringify(schemaFile)}, ` +
          `migrations: { ...config.migrations, path: ${JSON.stringify(join(project, 'migrations'))} } };\n`,
      );
      const committedBefore = committedMigrations(kind);
      const db = fresh('dev');

      const run = runPrismaCli(
        ['migrate', 'dev', '--name', 'add_title', '--config', join(project, 'prisma.config.ts')],
        db.url,
      );

      expect(run.status).toBe(0);
      const created = readdirSync(join(project, 'migrations')).filter((name) => name.endsWith('_add_title'));
      expect(created).toHaveLength(1);
      expect(readFileSync(join(project, 'migrations', created[0], 'migration.sql'), 'utf8')).toMatch(
        /ALTER TABLE "links" ADD COLUMN +"title" TEXT/,
      );
      expect(await appliedMigrations(db)).toEqual([...committedBefore, created[0]].sort());
      expect(committedMigrations(kind)).toEqual(committedBefore);
      expect(existsSync(join(ROOT, 'prisma', kind, 'migrations', created[0]))).toBe(false);
    });
  });
});

describeOn('sqlite')('a SQLite URL with %-escapes, as the migrator and the service read it', () => {
  it('file:…/my%20db.db: `prisma migrate deploy` and the service open the same file, "my db.db"', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shortlink-url-'));
    try {
      const url = `file:${dir}/my%20db.db`;
      const deployed = runPrismaCli(['migrate', 'deploy'], url);
      expect(deployed.status).toBe(0);
      expect(readdirSync(dir).filter((name) => name.endsWith('.db'))).toEqual(['my db.db']);

      const { startTestApp } = await import('./support/test-app.js');
      const testApp = await startTestApp(
        { DATABASE_URL: url, MIGRATE_ON_START: 'false' },
        { url, drop: () => Promise.resolve() },
      );
      try {
        const created = await testApp.request('/api/links', {
          method: 'POST',
          json: { url: 'https://example.com/spaces' },
        });
        expect(created.status).toBe(201);
      } finally {
        await testApp.close();
      }
      const db = new Database(join(dir, 'my db.db'), { readonly: true });
      try {
        expect(db.prepare('SELECT url FROM links').all()).toEqual([{ url: 'https://example.com/spaces' }]);
      } finally {
        db.close();
      }
      expect(readdirSync(dir).filter((name) => name.endsWith('.db'))).toEqual(['my db.db']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
