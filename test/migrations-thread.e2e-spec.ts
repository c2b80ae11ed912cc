import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDatabaseUrl } from '../prisma/engine/database-url.js';
import { MigrationError } from '../src/database/migration-error.js';
import { prepareDatabaseOnThread } from '../src/database/prepare-database-thread.js';
import { prepareDatabase } from '../src/database/startup-migrations.js';
import { freePort } from './support/processes/free-port.js';
import { createTestDatabase, type TestDatabase } from './support/database/test-database.js';

/**
 * The service prepares its database on a thread that ends with the work (src/main.ts), so that the
 * schema engine's WebAssembly is freed; it must do exactly what prepareDatabase does in-process.
 */
describe('prepareDatabaseOnThread', () => {
  let database: TestDatabase;
  const messages: string[] = [];
  const options = (migrateOnStart: boolean) => ({ migrateOnStart, log: (message: string) => messages.push(message) });

  beforeEach(async () => {
    messages.length = 0;
    database = await createTestDatabase();
  });
  afterEach(() => database.drop());

  it('applies the migrations, logging what prepareDatabase logs, and finds nothing to do the second time', async () => {
    await prepareDatabaseOnThread(readDatabaseUrl(database.url), options(true));
    expect(messages.at(-1)).toMatch(/^Applied migrations: \d+_init, /);
    messages.length = 0;
    await prepareDatabaseOnThread(readDatabaseUrl(database.url), options(false));
    expect(messages).toEqual(['Database schema is up to date']);
  });

  it("rejects with prepareDatabase's MigrationError and message when migrations are pending", async () => {
    const inProcess: unknown = await prepareDatabase(readDatabaseUrl(database.url), options(false)).catch((e) => e);
    const onThread: unknown = await prepareDatabaseOnThread(readDatabaseUrl(database.url), options(false)).catch(
      (e) => e,
    );
    expect(inProcess).toBeInstanceOf(MigrationError);
    expect(onThread).toBeInstanceOf(MigrationError);
    expect((onThread as Error).message).toBe((inProcess as Error).message);
    expect((onThread as Error).message).toMatch(/pending migration\(s\).*npx prisma migrate deploy/);
  });

  it('rejects with a MigrationError when the database cannot be reached', async () => {
    const unreachable = readDatabaseUrl(`postgresql://postgres@127.0.0.1:${await freePort()}/shortlink`);
    const failure: unknown = await prepareDatabaseOnThread(unreachable, options(true)).catch((e) => e);
    expect(failure).toBeInstanceOf(MigrationError);
    expect((failure as Error).message).toMatch(/^Cannot connect to the database: /);
  });

  it("rejects with an unexpected error's message and the thread's stack, not as a MigrationError", async () => {
    // A folder where the SQLite file should be: the driver fails, which is no migration problem.
    const dir = mkdtempSync(join(tmpdir(), 'migrations-thread-'));
    try {
      const target = readDatabaseUrl(`file:${dir}`);
      const inProcess: unknown = await prepareDatabase(target, options(true)).catch((e) => e);
      const onThread: unknown = await prepareDatabaseOnThread(target, options(true)).catch((e) => e);
      // (The driver's own error class comes from another realm under Jest: compared by message.)
      expect((inProcess as Error).message).toMatch(/\S/);
      expect(onThread).toBeInstanceOf(Error);
      expect(onThread).not.toBeInstanceOf(MigrationError);
      expect((onThread as Error).message).toBe((inProcess as Error).message);
      // The stack is where it happened, on the thread (main prints it for errors like this one).
      expect((onThread as Error).stack).toContain((inProcess as Error).message);
      expect((onThread as Error).stack).toMatch(/\n\s+at .*better-sqlite3/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
