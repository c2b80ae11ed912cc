import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { readDatabaseUrl } from '../prisma/engine/database-url.js';
import { prepareDatabase } from '../src/database/startup-migrations.js';
import { committedMigrations, migratedTables } from './support/database/migrations.js';
import { describeOn, TEST_POSTGRES_URL as ADMIN_URL, withPostgres } from './support/database/test-database.js';

describe('prepareDatabase', () => {
  const messages: string[] = [];
  const options = (migrateOnStart: boolean) => ({ migrateOnStart, log: (message: string) => messages.push(message) });

  beforeEach(() => {
    messages.length = 0;
  });

  describeOn('sqlite')('on SQLite', () => {
    let dir: string;
    let url: string;
    const tables = () => {
      const db = new Database(join(dir, 'nested', 'app.db'));
      try {
        return {
          names: db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all(),
          migrations: db.prepare('SELECT migration_name FROM _prisma_migrations').pluck().all(),
        };
      } finally {
        db.close();
      }
    };

    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'shortlink-startup-'));
      url = `file:${join(dir, 'nested', 'app.db')}`;
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('creates the file and its folder, applies the migrations, and is a no-op the second time', async () => {
      await prepareDatabase(readDatabaseUrl(url), options(true));
      expect(tables()).toEqual({
        names: ['_prisma_migrations', ...migratedTables('sqlite')],
        migrations: committedMigrations('sqlite'),
      });
      expect(messages.join('\n')).toMatch(/Applied migrations: .*_init/);

      messages.length = 0;
      await prepareDatabase(readDatabaseUrl(url), options(true));
      expect(messages).toEqual(['Database schema is up to date']);
      expect(tables().migrations).toEqual(committedMigrations('sqlite'));
    });

    it('refuses to start with pending migrations when MIGRATE_ON_START is false, naming the command', async () => {
      await expect(prepareDatabase(readDatabaseUrl(url), options(false))).rejects.toThrow(
        /pending migration\(s\): \d+_init.*npx prisma migrate deploy/,
      );
    });

    it('starts without migrating when MIGRATE_ON_START is false and nothing is pending', async () => {
      await prepareDatabase(readDatabaseUrl(url), options(true));
      await expect(prepareDatabase(readDatabaseUrl(url), options(false))).resolves.toBeUndefined();
    });

    it('releases the file: the database can be deleted right after', async () => {
      await prepareDatabase(readDatabaseUrl(url), options(true));
      const db = new Database(join(dir, 'nested', 'app.db'));
      // An exclusive lock succeeds only when no other connection holds the file.
      db.exec('BEGIN EXCLUSIVE; COMMIT;');
      db.close();
    });
  });

  describeOn('postgresql')('on PostgreSQL', () => {
    let name: string;
    let url: string;

    beforeEach(() => {
      name = `shortlink_startup_${randomBytes(5).toString('hex')}`;
      const parsed = new URL(ADMIN_URL);
      parsed.pathname = `/${name}`;
      url = parsed.toString();
    });
    afterEach(() =>
      withPostgres(ADMIN_URL, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)),
    );

    const appliedMigrations = () =>
      withPostgres(url, async (client) => {
        const { rows } = await client.query<{ migration_name: string }>(
          'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY 1',
        );
        return rows.map((row) => row.migration_name);
      });

    it('creates the database, applies the migrations, and is a no-op the second time', async () => {
      await prepareDatabase(readDatabaseUrl(url), options(true));
      expect(messages[0]).toBe(`Created PostgreSQL database ${name}`);
      expect(await appliedMigrations()).toEqual(committedMigrations('postgresql'));
      const tables = await withPostgres(url, async (client) =>
        (await client.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map(
          (row: { tablename: string }) => row.tablename,
        ),
      );
      expect(tables).toEqual(['_prisma_migrations', ...migratedTables('postgresql')]);

      messages.length = 0;
      await prepareDatabase(readDatabaseUrl(url), options(true));
      expect(messages).toEqual(['Database schema is up to date']);
    });

    it('refuses to start with pending migrations when MIGRATE_ON_START is false', async () => {
      await expect(prepareDatabase(readDatabaseUrl(url), options(false))).rejects.toThrow(
        /pending.*npx prisma migrate deploy/,
      );
    });

    it('lets two instances start at once on one fresh database', async () => {
      await Promise.all([
        prepareDatabase(readDatabaseUrl(url), options(true)),
        prepareDatabase(readDatabaseUrl(url), options(true)),
      ]);
      expect(await appliedMigrations()).toEqual(committedMigrations('postgresql'));
    });

    it('lets two processes start at once on one fresh database', async () => {
      const root = join(dirname(fileURLToPath(import.meta.url)), '..');
      const script =
        `const { prepareDatabase } = await import(${JSON.stringify(pathToFileURL(join(root, 'src/database/startup-migrations.ts')).href)});` +
        `const { readDatabaseUrl } = await import(${JSON.stringify(pathToFileURL(join(root, 'prisma/engine/database-url.js')).href)});` +
        'await prepareDatabase(readDatabaseUrl(process.argv[1]), { migrateOnStart: true, log: console.log });';
      const start = () =>
        promisify(execFile)(
          process.execPath,
          ['--import', './test/support/swc-register.mjs', '--input-type=module', '-e', script, url],
          { cwd: root, env: { ...process.env, NODE_OPTIONS: '' } },
        );
      const outputs = await Promise.all([start(), start()]);
      expect(outputs.map((output) => output.stdout).join('')).toMatch(/Applied migrations: .*_init/);
      expect(await appliedMigrations()).toEqual(committedMigrations('postgresql'));
    });

    it('closes its connection, which releases the migration lock', async () => {
      await prepareDatabase(readDatabaseUrl(url), options(true));
      const others = await withPostgres(ADMIN_URL, async (client) =>
        Number((await client.query('SELECT count(*) FROM pg_stat_activity WHERE datname = $1', [name])).rows[0].count),
      );
      expect(others).toBe(0);
    });
  });
});
