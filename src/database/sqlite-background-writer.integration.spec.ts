import Database from 'better-sqlite3';
import { copyFileSync, statSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Worker } from 'node:worker_threads';
import { createTestDatabase, type TestDatabase } from '../../test/support/database/test-database.js';
import { youngGenerationProbe } from '../../test/support/probes/young-generation-probe.js';
import { heldHeapProbe } from '../../test/support/probes/held-heap-probe.js';
import { sqliteFilePath } from '../../prisma/engine/database-url.js';
import { openDatabaseConnections } from './database-connections.js';
import { PostgresPools } from './postgres-pools.js';
import { SqliteConnections } from './sqlite-connections.js';
import { createDatabaseClient, tuneSqlite, type DatabaseClient } from './prisma-client.factory.js';
import { SqliteBackgroundWriter, SqliteWriteError, SqliteWriterUnavailableError } from './sqlite-background-writer.js';

const INSERT = 'INSERT INTO "items" ("id", "label") VALUES (?, ?)';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SqliteBackgroundWriter', () => {
  let database: TestDatabase;
  let file: string;
  let prisma: DatabaseClient;
  let sut: SqliteBackgroundWriter;

  const workerOf = (writer: SqliteBackgroundWriter) => (writer as unknown as { worker?: Worker }).worker;
  /** Rows of `items` in the database file alone, i.e. what checkpoints have copied out of the WAL. */
  const rowsInMainFile = () => {
    const copy = `${file}.main-only`;
    copyFileSync(file, copy);
    const db = new Database(copy, { readonly: true });
    try {
      // Until a checkpoint, even the table itself exists only in the WAL.
      const table = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'items'").get();
      return table ? (db.prepare('SELECT count(*) AS n FROM items').get() as { n: number }).n : 0;
    } finally {
      db.close();
    }
  };
  const count = async () =>
    Number((await prisma.$queryRawUnsafe<[{ n: bigint }]>('SELECT count(*) AS n FROM items'))[0].n);

  beforeEach(async () => {
    database = await createTestDatabase('sqlite');
    file = sqliteFilePath(database.url);
    prisma = await createDatabaseClient(new SqliteConnections(file));
    await tuneSqlite(prisma);
    await prisma.$executeRawUnsafe('CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT NOT NULL)');
    sut = new SqliteBackgroundWriter(file);
  });

  afterEach(async () => {
    await sut.close();
    await prisma.$disconnect();
    await database.drop();
  });

  it('runs a statement and its follow-ups in one transaction: all of them or none', async () => {
    await expect(sut.runWith(INSERT, [1, 'one'], [{ sql: INSERT, params: [2, 'two'] }])).resolves.toBe(1);
    expect(await count()).toBe(2);

    // The follow-up fails (its id is taken): the first statement is undone with it.
    await expect(sut.runWith(INSERT, [3, 'three'], [{ sql: INSERT, params: [1, 'again'] }])).rejects.toBeInstanceOf(
      SqliteWriteError,
    );
    expect(await count()).toBe(2);
    // Alongside other requests of the same group commit, which stay.
    const results = await Promise.allSettled([
      sut.run(INSERT, [4, 'four']),
      sut.runWith(INSERT, [5, 'five'], [{ sql: INSERT, params: [4, 'taken'] }]),
      sut.run(INSERT, [6, 'six']),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await count()).toBe(4);
  });

  it('answers a query with the rows it returns, once committed', async () => {
    await sut.run(INSERT, [1, 'one']);

    const rows = await sut.query<{ id: number; label: string }>(
      'UPDATE items SET label = ? WHERE id = ? RETURNING id, label',
      ['uno', 1],
    );

    expect(rows).toEqual([{ id: 1, label: 'uno' }]);
    expect(await count()).toBe(1);
  });

  it('starts its worker with the first write, not before', async () => {
    expect(workerOf(sut)).toBeUndefined();

    await sut.run(INSERT, [1, 'one']);

    expect(workerOf(sut)).toBeDefined();
  });

  it('runs a single statement and answers with the rows it changed', async () => {
    const upsert = 'INSERT INTO "items" ("id", "label") VALUES (?, ?) ON CONFLICT ("id") DO NOTHING';

    await expect(sut.run(upsert, [1, 'one'])).resolves.toBe(1);
    await expect(sut.run(upsert, [1, 'again'])).resolves.toBe(0);

    expect(await count()).toBe(1);
  });

  it("passes the driver's error code along, as Prisma's connection would report it", async () => {
    await prisma.$executeRawUnsafe('CREATE TABLE owners (id INTEGER PRIMARY KEY)');
    await prisma.$executeRawUnsafe('CREATE TABLE owned (id INTEGER PRIMARY KEY, owner INTEGER REFERENCES owners (id))');

    const failure = sut.run('INSERT INTO owned (id, owner) VALUES (?, ?)', [1, 42]);

    await expect(failure).rejects.toBeInstanceOf(SqliteWriteError);
    await expect(failure).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
  });

  describe('statements sent together (committed as a group)', () => {
    /** Ids of the rows in `items`. */
    const ids = async () =>
      new Set(
        (await prisma.$queryRawUnsafe<{ id: bigint | number }[]>('SELECT id FROM items')).map((row) => Number(row.id)),
      );

    it('acknowledges each once written, with its own row count', async () => {
      const upsert = 'INSERT INTO "items" ("id", "label") VALUES (?, ?) ON CONFLICT ("id") DO NOTHING';
      await sut.run(upsert, [0, 'warm-up']);

      // Fired in one go, as concurrent requests do: the worker receives many at once.
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => sut.run(upsert, [i % 150, `row ${i}`])));

      // Ids 0–149 once each: id 0 existed, and ids 0–49 are sent twice.
      expect(results.filter((changes) => changes === 1)).toHaveLength(149);
      expect(results.filter((changes) => changes === 0)).toHaveLength(51);
      expect((await ids()).size).toBe(150);
    });

    it('fails only the statements that fail; the others are written', async () => {
      await prisma.$executeRawUnsafe('CREATE TABLE owners (id INTEGER PRIMARY KEY)');
      await prisma.$executeRawUnsafe('INSERT INTO owners (id) VALUES (1)');
      await prisma.$executeRawUnsafe('ALTER TABLE items ADD COLUMN owner INTEGER REFERENCES owners (id)');
      const insert = 'INSERT INTO items (id, label, owner) VALUES (?, ?, ?)';

      // Every third row names an owner that does not exist.
      const outcomes = await Promise.allSettled(
        Array.from({ length: 60 }, (_, i) => sut.run(insert, [i, `row ${i}`, i % 3 === 0 ? 999 : 1])),
      );

      const written = await ids();
      outcomes.forEach((outcome, i) => {
        if (i % 3 === 0) {
          expect(outcome).toMatchObject({ status: 'rejected', reason: { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' } });
          expect(written.has(i)).toBe(false);
        } else {
          expect(outcome).toEqual({ status: 'fulfilled', value: 1 });
          expect(written.has(i)).toBe(true);
        }
      });
    });

    it('acknowledges none whose commit failed, and writes none of them', async () => {
      // A deferred foreign key is checked at COMMIT: a violation there fails the whole group the
      // bad row is in. Whatever the grouping, an acknowledged row must exist and a refused one not.
      await prisma.$executeRawUnsafe('CREATE TABLE owners (id INTEGER PRIMARY KEY)');
      await prisma.$executeRawUnsafe('INSERT INTO owners (id) VALUES (1)');
      await prisma.$executeRawUnsafe(
        'ALTER TABLE items ADD COLUMN owner INTEGER REFERENCES owners (id) DEFERRABLE INITIALLY DEFERRED',
      );
      const insert = 'INSERT INTO items (id, label, owner) VALUES (?, ?, ?)';

      const outcomes = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) => sut.run(insert, [i, `row ${i}`, i === 20 ? 999 : 1])),
      );

      const written = await ids();
      expect(outcomes[20]).toMatchObject({ status: 'rejected', reason: { code: 'SQLITE_CONSTRAINT_FOREIGNKEY' } });
      outcomes.forEach((outcome, i) => expect(written.has(i)).toBe(outcome.status === 'fulfilled'));
    });
  });

  describe('runAll: statements written together or not at all', () => {
    const labels = async () =>
      (
        await prisma.$queryRawUnsafe<{ id: bigint | number; label: string }[]>(
          'SELECT id, label FROM items ORDER BY id',
        )
      ).map((row) => `${Number(row.id)}:${row.label}`);

    it('answers with the rows each statement changed; a later one may ask what the one before did', async () => {
      const upsert = 'INSERT INTO items (id, label) VALUES (?, ?) ON CONFLICT (id) DO NOTHING';
      // changes(): the rows the statement before changed (the link store tags only links it inserted).
      const ifInserted = "INSERT INTO items (id, label) SELECT ?, 'follows ' || ? WHERE changes() = 1";

      await expect(
        sut.runAll([
          { sql: upsert, params: [1, 'one'] },
          { sql: ifInserted, params: [101, 'one'] },
        ]),
      ).resolves.toEqual([1, 1]);
      await expect(
        sut.runAll([
          { sql: upsert, params: [1, 'again'] },
          { sql: ifInserted, params: [102, 'again'] },
        ]),
      ).resolves.toEqual([0, 0]);

      expect(await labels()).toEqual(['1:one', '101:follows one']);
    });

    it('undoes every statement of a request when one fails, alone or among others', async () => {
      const insert = 'INSERT INTO items (id, label) VALUES (?, ?)';
      await sut.run(insert, [5, 'taken']);

      const outcomes = await Promise.allSettled([
        sut.runAll([
          { sql: insert, params: [1, 'a'] },
          { sql: insert, params: [2, 'b'] },
        ]),
        sut.runAll([
          { sql: insert, params: [3, 'c'] },
          { sql: insert, params: [5, 'clash'] },
        ]),
        sut.run(insert, [4, 'd']),
      ]);
      await expect(
        sut.runAll([
          { sql: insert, params: [6, 'e'] },
          { sql: insert, params: [6, 'clash'] },
        ]),
      ).rejects.toMatchObject({
        code: 'SQLITE_CONSTRAINT_PRIMARYKEY',
      });

      expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(await labels()).toEqual(['1:a', '2:b', '4:d', '5:taken']);
    });
  });

  it('checkpoints its own writes on its own thread once the WAL is full', async () => {
    // Over SQLite's automatic checkpoint threshold of 1,000 pages (4 MiB).
    // Sent at once, they are committed in a few group transactions.
    await Promise.all(Array.from({ length: 20_000 }, (_, i) => sut.run(INSERT, [i, 'x'.repeat(250)])));

    expect(await count()).toBe(20_000);
    // Without a checkpoint the main file alone would not even hold the table. How many rows it
    // holds depends on where the group commits fell relative to the 1,000-page threshold (CI saw
    // 9,519 once), so the proof is that it holds any.
    expect(rowsInMainFile()).toBeGreaterThan(0);
  });

  it('leaves an empty WAL behind when the application shuts down', async () => {
    await sut.run(INSERT, [1, 'one']);
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(0);

    await sut.close();

    expect(statSync(`${file}-wal`).size).toBe(0);
    expect(rowsInMainFile()).toBe(1);
    await expect(sut.run(INSERT, [2, 'two'])).rejects.toThrow(/shut down/);
    await expect(sut.run(INSERT, [2, 'two'])).rejects.toBeInstanceOf(SqliteWriterUnavailableError);
  });

  it('survives its worker dying: writes are refused for a second, then a new worker runs them', async () => {
    await sut.run(INSERT, [0, 'zero']);
    const worker = workerOf(sut);
    expect(worker).toBeDefined();

    await worker!.terminate();
    const deadline = Date.now() + 5000;
    while (workerOf(sut) !== undefined && Date.now() < deadline) await sleep(20);
    expect(workerOf(sut)).toBeUndefined();

    // Restarts are spaced out, so a worker that keeps dying cannot spin; the caller retries.
    await expect(sut.run(INSERT, [1, 'one'])).rejects.toThrow(/restarting/);
    await sleep(1100);
    await sut.run(INSERT, [1, 'one']);

    expect(workerOf(sut)).toBeDefined();
    expect(workerOf(sut)).not.toBe(worker);
    expect(await count()).toBe(2);
  });

  it("keeps its thread's young generation small when node was started with --max-semi-space-size", async () => {
    // The service starts with --max-semi-space-size=8 (src/node-flags.ts), which V8 applies to
    // every isolate over a worker's resourceLimits: a click fold then grew the writer's young
    // generation to 16 MiB. Set here as node's command line would set it.
    process.execArgv.push('--max-semi-space-size=8');
    v8.setFlagsFromString('--max-semi-space-size=8');
    try {
      const newSpaceKiB = await sut.runTask(youngGenerationProbe, {});
      expect(newSpaceKiB).toBeLessThanOrEqual(3 * 1024);
    } finally {
      process.execArgv.splice(process.execArgv.indexOf('--max-semi-space-size=8'), 1);
      v8.setFlagsFromString('--max-semi-space-size=0');
    }
  });

  it("collects the thread's garbage once a task ends, and exposes gc() to no one else", async () => {
    // A fold's working set is promoted out of the thread's small young generation, and its old
    // generation is rarely collected: without a collection when the task ends, an idle writer
    // kept the last fold's 4-11 MiB for as long as it ran.
    const whileHeld = await sut.runTask(heldHeapProbe, { holdMb: 40 });
    const afterwards = await sut.runTask(heldHeapProbe, { holdMb: 0 });

    expect(whileHeld).toBeGreaterThan(30 * 1024);
    expect(afterwards).toBeLessThan(whileHeld - 25 * 1024);
    // gc() is the writer thread's alone: the flag that exposes it is set only while it starts.
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe('undefined');
    expect(vm.runInNewContext('typeof gc')).toBe('undefined');
  });

  it('exists only on SQLite: PostgreSQL has its pools and no writer', async () => {
    const sqlite = await openDatabaseConnections({ kind: 'sqlite', url: `file:${file}`, file });
    const postgres = await openDatabaseConnections({
      kind: 'postgresql',
      url: 'postgresql://unused@127.0.0.1:1/unused',
      schema: 'public',
      connection: { host: '127.0.0.1', port: 1, database: 'unused', connectionTimeoutMillis: 1000, options: '' },
    });
    try {
      expect(sqlite).toBeInstanceOf(SqliteConnections);
      expect(postgres).toBeInstanceOf(PostgresPools);
      expect('writer' in postgres).toBe(false);
    } finally {
      await sqlite.close();
      await postgres.close();
    }
  });
});
