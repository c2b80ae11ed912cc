// The click log on SQLite: clicks appended once per flush, added to links.clicks in bulk (a fold),
// and counted by the API in between. SQLite only (PostgreSQL writes clicks straight into links,
// which test/redirect.e2e-spec.ts covers on both kinds), so this spec makes its own database.
import Database from 'better-sqlite3';
import { sqliteFilePath } from '../prisma/engine/database-url.js';
import { SqliteBackgroundWriter, toSqliteDateTime } from '../src/database/sqlite-background-writer.js';
import { foldClickLog } from '../src/clicks/click-log-fold.js';
import type { TaskContext } from '../src/database/sqlite-writer-protocol.js';
import { TaskPacer } from '../src/database/task-pacing.js';
import { ClickSink } from '../src/clicks/click-sink.js';
import type { SqliteClickSink } from '../src/clicks/sqlite-click-sink.js';
import { createAccountWithToken, type TestAccount } from './support/factories.js';
import { eventually } from './support/eventually.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { createTestDatabase, type TestDatabase } from './support/database/test-database.js';

describe('click log (SQLite)', () => {
  let database: TestDatabase;
  let testApp: TestApp;
  let owner: TestAccount;
  let file: string;

  /** Reads and writes the file beside the service, as an operator's tool or a crash would leave it. */
  function withFile<T>(work: (db: Database.Database) => T): T {
    const db = new Database(file, { timeout: 5000 });
    try {
      return work(db);
    } finally {
      db.close();
    }
  }
  const row = (code: string) =>
    withFile(
      (db) =>
        db.prepare('SELECT clicks, clicks_through_batch AS throughBatch FROM links WHERE code = ?').get(code) as
          { clicks: number; throughBatch: number } | undefined,
    );
  const loggedBatches = () =>
    withFile((db) => (db.prepare('SELECT count(*) AS n FROM click_batches').get() as { n: number }).n);
  /** Links created a minute ago, written straight into the file (while the service is stopped). */
  const insertLinks = (codes: string[]) =>
    withFile((db) => {
      const createdAt = toSqliteDateTime(new Date(Date.now() - 60_000));
      const insert = db.prepare(
        'INSERT INTO links (code, url, account_id, clicks, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?)',
      );
      db.transaction(() => {
        for (const code of codes)
          insert.run(code, `https://example.com/${code}`, owner.accountId, createdAt, createdAt);
      })();
    });

  async function start(): Promise<void> {
    testApp = await startTestApp({ CLICK_FLUSH_INTERVAL_MS: '50' }, database);
  }

  async function createLink(code: string): Promise<void> {
    const response = await testApp.request('/api/links', {
      method: 'POST',
      headers: owner.apiKey,
      json: { url: `https://example.com/${code}`, custom_code: code },
    });
    expect(response.status).toBe(201);
  }

  async function visit(code: string, times: number): Promise<void> {
    for (let i = 0; i < times; i++) expect((await testApp.request(`/${code}`)).status).toBe(302);
  }

  async function apiClicks(code: string): Promise<number> {
    const response = await testApp.request(`/api/links/${code}`, { headers: owner.apiKey });
    expect(response.status).toBe(200);
    return ((await response.json()) as { clicks: number }).clicks;
  }

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    file = sqliteFilePath(database.url);
    await start();
    owner = await createAccountWithToken(testApp);
  });
  afterAll(async () => {
    await testApp.close();
    await database.drop();
  });

  it('counts logged clicks in the API at once, and a fold moves them into links without counting twice', async () => {
    await createLink('logged1');
    await visit('logged1', 5);

    await eventually(async () => expect(await apiClicks('logged1')).toBe(5));
    expect(row('logged1')).toEqual({ clicks: 0, throughBatch: 0 });
    expect(loggedBatches()).toBeGreaterThan(0);

    await testApp.app.get<ClickSink, SqliteClickSink>(ClickSink).fold();

    expect(row('logged1')).toMatchObject({ clicks: 5 });
    expect(row('logged1')!.throughBatch).toBeGreaterThan(0);
    expect(loggedBatches()).toBe(0);
    expect(await apiClicks('logged1')).toBe(5);

    await visit('logged1', 2);
    await eventually(async () => expect(await apiClicks('logged1')).toBe(7));
  });

  it('starts a link re-created with a deleted link’s code at 0 clicks, before and after a fold', async () => {
    await createLink('reborn1');
    await visit('reborn1', 3);
    await eventually(async () => expect(await apiClicks('reborn1')).toBe(3));

    const deleted = await testApp.request('/api/links/reborn1', { method: 'DELETE', headers: owner.apiKey });
    expect(deleted.status).toBe(204);
    await createLink('reborn1');
    expect(await apiClicks('reborn1')).toBe(0);
    await visit('reborn1', 2);
    await eventually(async () => expect(await apiClicks('reborn1')).toBe(2));

    await testApp.app.get<ClickSink, SqliteClickSink>(ClickSink).fold();

    expect(row('reborn1')).toMatchObject({ clicks: 2 });
    expect(await apiClicks('reborn1')).toBe(2);
  });

  it('counts what a crash left in the log from start-up, completes a fold cut off halfway, and folds at shutdown', async () => {
    await createLink('crash01');
    await createLink('crash02');
    await testApp.close();
    // What a killed instance leaves: two logged batches, and a fold that had updated crash01
    // (through batch `second`) but neither deleted the batches nor reached crash02.
    const batchAt = toSqliteDateTime(new Date(Date.now() + 1000));
    withFile((db) => {
      const insert = db.prepare('INSERT INTO click_batches (logged_at, counts) VALUES (?, ?)');
      insert.run(
        batchAt,
        JSON.stringify([
          ['crash01', 4],
          ['crash02', 1],
        ]),
      );
      const second = Number(
        insert.run(
          batchAt,
          JSON.stringify([
            ['crash01', 1],
            ['crash02', 2],
          ]),
        ).lastInsertRowid,
      );
      db.prepare("UPDATE links SET clicks = clicks + 5, clicks_through_batch = ? WHERE code = 'crash01'").run(second);
    });

    await start();
    expect(await apiClicks('crash01')).toBe(5);
    expect(await apiClicks('crash02')).toBe(3);
    await visit('crash02', 1);
    await eventually(async () => expect(await apiClicks('crash02')).toBe(4));
    await testApp.close();

    expect(row('crash01')).toMatchObject({ clicks: 5 });
    expect(row('crash02')).toMatchObject({ clicks: 4 });
    expect(loggedBatches()).toBe(0);
    await start();
  });

  it('folds a log larger than a part in parts, exactly, and completes a fold cut off between parts', async () => {
    // 3,000 links with clicks in two batches (~100,000 characters of JSON: five parts of 20,000).
    const codes = Array.from({ length: 3000 }, (_, i) => `part${String(i).padStart(4, '0')}`);
    await testApp.close();
    insertLinks(codes);
    const loggedAt = toSqliteDateTime(new Date(Date.now() - 30_000));
    const through = withFile((db) => {
      const insert = db.prepare('INSERT INTO click_batches (logged_at, counts) VALUES (?, ?)');
      insert.run(loggedAt, JSON.stringify(codes.map((code, i) => [code, (i % 5) + 1])));
      return Number(insert.run(loggedAt, JSON.stringify(codes.map((code) => [code, 1]))).lastInsertRowid);
    });
    // What a fold cut off after its first parts leaves: their rows complete, through the last batch.
    const done = codes.slice(0, 700);
    withFile((db) => {
      const complete = db.prepare('UPDATE links SET clicks = ?, clicks_through_batch = ? WHERE code = ?');
      db.transaction(() => done.forEach((code, i) => complete.run((i % 5) + 2, through, code)))();
    });

    const writer = new SqliteBackgroundWriter(file);
    try {
      expect(await writer.runTask(foldClickLog, { spreadMs: 0, partChars: 20_000 })).toBe(through);
    } finally {
      await writer.close();
    }

    const folded = withFile(
      (db) =>
        db
          .prepare(
            `SELECT l.code, l.clicks, l.clicks_through_batch AS throughBatch, coalesce(sum(d.clicks), 0) AS daily
             FROM links l LEFT JOIN link_daily_clicks d ON d.code = l.code
             WHERE l.code LIKE 'part%' GROUP BY l.code ORDER BY l.code`,
          )
          .all() as Array<{ code: string; clicks: number; throughBatch: number; daily: number }>,
    );
    expect(folded).toEqual(
      codes.map((code, i) => ({
        code,
        clicks: (i % 5) + 2,
        throughBatch: through,
        // The rows the cut-off fold completed had their daily rows written then (not here).
        daily: i < done.length ? 0 : (i % 5) + 2,
      })),
    );
    expect(loggedBatches()).toBe(0);
    await start();
    expect(await apiClicks('part2999')).toBe(6);
  });

  it('collects the writer’s garbage between a fold’s parts, each time after a part’s rows are written', async () => {
    // 2,000 links with clicks in one batch (~36,000 characters of JSON: four parts of 10,000).
    const codes = Array.from({ length: 2000 }, (_, i) => `gcpart${String(i).padStart(4, '0')}`);
    await testApp.close();
    insertLinks(codes);
    const loggedAt = toSqliteDateTime(new Date(Date.now() - 30_000));
    const { through, parts } = withFile((db) => {
      const counts = JSON.stringify(codes.map((code) => [code, 1]));
      const id = db.prepare('INSERT INTO click_batches (logged_at, counts) VALUES (?, ?)').run(loggedAt, counts);
      return { through: Number(id.lastInsertRowid), parts: Math.ceil(counts.length / 10_000) };
    });
    expect(parts).toBe(4);

    // The fold on a connection of its own, as the writer's thread runs it, with a context that
    // records how many of the links were written whenever it is asked to collect.
    const db = new Database(file, { timeout: 5000 });
    try {
      const written = db
        .prepare<[number], number>(
          "SELECT count(*) FROM links WHERE code LIKE 'gcpart%' AND clicks = 1 AND clicks_through_batch = ?",
        )
        .pluck();
      const seen: number[] = [];
      const context: TaskContext = {
        pace: (duty) => new TaskPacer(duty),
        collectGarbage: () => seen.push(written.get(through)!),
      };
      expect(await foldClickLog.run(db, { spreadMs: 0, partChars: 10_000 }, context)).toBe(through);

      // Once between each two parts (the writer collects after the last, when the task ends).
      expect(seen).toHaveLength(parts - 1);
      // Each after a part's rows were written, before the next part's.
      expect(seen[0]).toBeGreaterThan(0);
      for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1]);
      expect(seen[seen.length - 1]).toBeLessThan(codes.length);
      expect(written.get(through)).toBe(codes.length);
    } finally {
      db.close();
    }
    await start();
  });

  it('lets link inserts through during a fold of many rows, and the API never miscounts meanwhile', async () => {
    // 20,000 links with logged clicks (ten of the fold's transactions), written beside the
    // service before it starts, as a busy instance would have left them.
    const codes = Array.from({ length: 20_000 }, (_, i) => `bulk${String(i).padStart(5, '0')}`);
    const expected = new Map(codes.map((code, i) => [code, (i % 7) + 1]));
    await testApp.close();
    insertLinks(codes);
    withFile((db) => {
      db.prepare('INSERT INTO click_batches (logged_at, counts) VALUES (?, ?)').run(
        toSqliteDateTime(new Date(Date.now() - 30_000)),
        JSON.stringify([...expected]),
      );
    });
    await start();

    let folded = false;
    const fold = testApp.app
      .get<ClickSink, SqliteClickSink>(ClickSink)
      .fold()
      .then(() => (folded = true));
    const readsDuringFold: Array<Promise<void>> = [];
    let inserts = 0;
    while (!folded) {
      readsDuringFold.push(
        ...Array.from({ length: 4 }, async () => {
          const offset = Math.floor(Math.random() * (codes.length - 100));
          const response = await testApp.request(`/api/links?limit=100&offset=${offset}`, { headers: owner.apiKey });
          const page = (await response.json()) as { data: Array<{ code: string; clicks: number }> };
          for (const link of page.data) {
            if (expected.has(link.code)) expect(link.clicks).toBe(expected.get(link.code));
          }
        }),
      );
      await createLink(`during${inserts++}`);
    }
    await fold;
    await Promise.all(readsDuringFold);

    expect(inserts).toBeGreaterThan(1);
    expect(loggedBatches()).toBe(0);
    const rows = withFile(
      (db) =>
        db.prepare("SELECT code, clicks FROM links WHERE code LIKE 'bulk%' ORDER BY code").all() as Array<{
          code: string;
          clicks: number;
        }>,
    );
    expect(rows.map((link) => link.clicks)).toEqual(codes.map((code) => expected.get(code)));
  });

  it('spreads a paced fold over the time it is given, and finishes it at full speed at shutdown', async () => {
    // 20,000 links, each with one logged click; an unpaced fold of them tells the writer what a
    // fold of that size costs.
    const codes = Array.from({ length: 20_000 }, (_, i) => `paced${String(i).padStart(5, '0')}`);
    const logBatch = () =>
      withFile((db) =>
        db
          .prepare('INSERT INTO click_batches (logged_at, counts) VALUES (?, ?)')
          .run(toSqliteDateTime(new Date()), JSON.stringify(codes.map((code) => [code, 1]))),
      );
    await testApp.close();
    insertLinks(codes);
    logBatch();
    await start();
    const counter = testApp.app.get<ClickSink, SqliteClickSink>(ClickSink);
    let began = performance.now();
    await counter.fold();
    const unpacedMs = performance.now() - began;

    // The same work again, to be spread over a minute: at the lowest duty, about twenty times
    // its working time.
    logBatch();
    let folded = false;
    const paced = counter.fold(60_000).then(() => (folded = true));
    await new Promise((resolve) => setTimeout(resolve, 3 * unpacedMs));
    expect(folded).toBe(false);
    await createLink('during-paced-fold');

    began = performance.now();
    await testApp.close();
    const closeMs = performance.now() - began;
    await paced;

    expect(closeMs).toBeLessThan(10 * unpacedMs);
    const clicks = withFile(
      (db) => db.prepare("SELECT DISTINCT clicks FROM links WHERE code LIKE 'paced%'").pluck().all() as number[],
    );
    expect(clicks).toEqual([2]);
    expect(loggedBatches()).toBe(0);
    await start();
  });
});
