// @ts-check
// The worker thread behind SqliteBackgroundWriter (sqlite-background-writer.ts): SQLite writes
// that would otherwise stall the event loop, on a connection of its own.
//
// Plain JavaScript (type-checked through JSDoc) because a worker thread is started from a file:
// the same file then runs from src/ under the tests and from dist/ in production, where tsc
// copies it (allowJs).
import Database from 'better-sqlite3';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import { FoldPacer, foldDuty } from './fold-pacing.js';

/**
 * @typedef {{ file: string, busyTimeoutMs: number }} WorkerOptions
 * @typedef {{ type: 'run', id: number, sql: string, params: unknown[] }
 *   | { type: 'foldClicks', id: number, spreadMs: number }
 *   | { type: 'hurryFold', id: number }
 *   | { type: 'close', id: number }} Request
 * @typedef {Extract<Request, { type: 'run' }>} RunRequest
 */

const options = /** @type {WorkerOptions} */ (workerData);
const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);

const db = new Database(options.file, { fileMustExist: true, timeout: options.busyTimeoutMs });
// Same durability as the application's connection (see tuneSqlite): every commit is in the WAL
// before it is acknowledged.
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
// SQLite's automatic checkpoints stay on: the commit that fills the WAL copies it back into the
// database file (with an fsync), which takes tens of milliseconds, here on this thread.

/**
 * Frees the closed database's statement objects while this thread's environment is still alive.
 * Left to the thread's teardown, better-sqlite3's statement destructors run after the environment
 * is gone, and on Node.js 24 that aborts the whole process (`RemoveEnvironmentCleanupHook`:
 * `(env) != nullptr`), in the middle of the service's shutdown.
 */
function collectStatements() {
  statements.clear();
  setFlagsFromString('--expose-gc');
  const gc = /** @type {() => void} */ (runInNewContext('gc'));
  gc();
  gc();
}

/** @type {Map<string, import('better-sqlite3').Statement>} */
const statements = new Map();

/** @param {string} sql */
function statement(sql) {
  let prepared = statements.get(sql);
  if (!prepared) {
    prepared = db.prepare(sql);
    statements.set(sql, prepared);
  }
  return prepared;
}

/**
 * Statements of one `run` request each, committed together (see `drain`). Called inside the
 * group's transaction, better-sqlite3 wraps each in a SAVEPOINT: a statement that fails is
 * undone alone and the others stay.
 */
const runInGroup = db.transaction((/** @type {{ sql: string, params: unknown[] }} */ request) => {
  return statement(request.sql).run(...request.params);
});

/** @type {Request[]} Requests received and not answered yet, in arrival order. */
const received = [];
let draining = false;

port.on('message', (/** @type {Request} */ request) => {
  received.push(request);
  if (!draining) {
    draining = true;
    // After every message already delivered in this turn has been received.
    setImmediate(drain);
  }
});

/**
 * Group commit: consecutive `run` requests (link inserts) received together are written in one
 * transaction, so they share one commit (WAL frames of shared pages, the WAL index update)
 * instead of paying for one each. Each is acknowledged only once that transaction is committed.
 * Under load the group is whatever arrived while the previous one was being written; a lone
 * request is written at once, as before. Requests are answered in the order they came.
 */
function drain() {
  draining = false;
  const requests = received.splice(0);
  for (let i = 0; i < requests.length; ) {
    let end = i;
    while (end < requests.length && requests[end].type === 'run') end++;
    if (end - i > 1) {
      runGroup(/** @type {RunRequest[]} */ (requests.slice(i, end)));
      i = end;
    } else {
      handle(requests[i]);
      i++;
    }
  }
}

/** @param {RunRequest[]} group */
function runGroup(group) {
  /** @type {(import('better-sqlite3').RunResult | undefined)[]} */
  const results = [];
  /** @type {unknown[]} */
  const errors = [];
  try {
    db.transaction(() => {
      group.forEach((request, index) => {
        try {
          results[index] = runInGroup(request);
        } catch (error) {
          // Some errors (SQLITE_FULL, I/O errors, …) roll back the whole transaction: then
          // nothing of the group was written, and all of it fails below.
          if (!db.inTransaction) throw error;
          errors[index] = error;
        }
      });
    })();
  } catch (error) {
    // Nothing was committed (a failed COMMIT rolls back): every request of the group fails.
    for (const request of group) fail(request, error);
    return;
  }
  group.forEach((request, index) => {
    if (errors[index] === undefined) done(request, results[index]);
    else fail(request, errors[index]);
  });
}

/** @param {Request} request */
function handle(request) {
  try {
    /** @type {import('better-sqlite3').RunResult | undefined} */
    let result;
    switch (request.type) {
      case 'run':
        result = statement(request.sql).run(...request.params);
        break;
      case 'foldClicks':
        // Asynchronous: other requests (link inserts, new click batches) are handled between
        // its transactions. It answers for itself.
        foldClicks(request.spreadMs).then(
          (through) => done(request, { changes: through, lastInsertRowid: 0 }),
          (/** @type {unknown} */ error) => fail(request, error),
        );
        return;
      case 'hurryFold':
        if (foldPacer) foldPacer.duty = 1;
        break;
      case 'close':
        try {
          // TRUNCATE leaves an empty WAL behind when nothing else reads: a stopped service's
          // file is complete on its own.
          db.pragma('wal_checkpoint(TRUNCATE)');
        } finally {
          db.close();
          collectStatements();
          // With no listener left, the thread ends once the reply is sent.
          port.unref();
        }
        break;
    }
    done(request, result);
  } catch (error) {
    fail(request, error);
  }
}

/** Rows of `links` updated per transaction of a fold: the write lock is held this long at most. */
const FOLD_ROWS_PER_TRANSACTION = 2000;
/** Codes looked up per read transaction of a fold (one file lock each, rather than one per code). */
const FOLD_LOOKUPS_PER_TRANSACTION = 2000;
let folding = false;
/**
 * What the last fold cost per character of logged counts (ms): the next fold's expected work, from
 * which its pace follows (see foldDuty).
 * @type {number | undefined}
 */
let foldMsPerLoggedChar;
/** @type {FoldPacer | undefined} The pace of the fold under way. */
let foldPacer;

/**
 * Adds every click batch logged so far (`click_batches`) to `links.clicks`, then deletes those
 * batches; resolves with the id of the last batch added (0: the log was empty).
 *
 * Why in bulk: each click batch touches one row per distinct code visited, and over many links
 * each such row sits on a page of its own, so writing each batch straight into `links` costs a
 * page write (and its WAL checkpoint) per click. Added up over many batches, every page is
 * written once per fold, however many of its links were visited.
 *
 * - The rows are found first through the code index, without the write lock, and updated in
 *   rowid order (the table's order: a page is read and written once, for all its rows) in
 *   transactions of FOLD_ROWS_PER_TRANSACTION rows; link inserts and new batches are handled
 *   between them. Visited in random order, the rows cost a read from the OS per row.
 * - Paced (fold-pacing.js): the work runs in short slices spread over about `spreadMs`, at no
 *   more than half a core, so that the event loop never competes with a burst of it.
 * - Exact across crashes and retries: a row records the last batch it includes
 *   (`clicks_through_batch`), and gets only the batches after that one. A fold cut off halfway
 *   leaves every row either fully updated or untouched, and the next fold (which sees the same
 *   batches, and maybe more) completes it.
 * - A batch counts for a link only if it was closed after the link was created, so the clicks
 *   of a deleted link never reach a new link with the same code.
 * - Each row is read again inside its transaction: one deleted since is skipped, or found again
 *   by its code if it was created again.
 * @param {number} spreadMs  how long the fold may take (0: as fast as it can, at shutdown)
 * @returns {Promise<number>}
 */
async function foldClicks(spreadMs) {
  if (folding) throw new Error('A click fold is already running');
  folding = true;
  try {
    const rows = /** @type {{ id: number, loggedAt: string, counts: string }[]} */ (
      statement('SELECT id, logged_at AS loggedAt, counts FROM click_batches ORDER BY id').all()
    );
    if (rows.length === 0) return 0;
    const through = rows[rows.length - 1].id;
    const loggedChars = rows.reduce((sum, row) => sum + row.counts.length, 0);
    const pacer = (foldPacer = new FoldPacer(
      foldDuty(foldMsPerLoggedChar === undefined ? undefined : foldMsPerLoggedChar * loggedChars, spreadMs),
    ));

    /** Per code: clicks in all batches, by day and referrer, and the first batch that has the code. */
    /** @type {Map<string, Total>} */
    const totals = new Map();
    /** @type {{ id: number, loggedAt: string, counts: Map<string, DayCounts[]> }[]} */
    const batches = [];
    for (const { id, loggedAt, counts: json } of rows) {
      const counts = parseCounts(json, loggedAt);
      batches.push({ id, loggedAt, counts });
      for (const [code, days] of counts) {
        let total = totals.get(code);
        if (!total) {
          total = { code, clicks: 0, firstId: id, firstLoggedAt: loggedAt, days: new Map() };
          totals.set(code, total);
        }
        addDays(total, days);
      }
      await pacer.slice();
    }
    /** The clicks of `code` in the batches `row` does not include, closed after it was created. */
    const clicksFor = (/** @type {string} */ code, /** @type {LinkRow} */ row) => {
      const [, createdAt, throughBatch] = row;
      /** @type {Total} */
      const total = { code, clicks: 0, firstId: 0, firstLoggedAt: '', days: new Map() };
      for (const batch of batches) {
        const days = batch.counts.get(code);
        if (days && batch.id > throughBatch && batch.loggedAt >= createdAt) addDays(total, days);
      }
      return total;
    };
    // A link's daily rows are written in the transaction that adds to its `clicks` (and moves its
    // `clicks_through_batch`), so they are exact whenever the count is.
    const addDay = statement(
      `INSERT INTO link_daily_clicks (code, day, clicks) VALUES (?, ?, ?)
       ON CONFLICT (code, day) DO UPDATE SET clicks = clicks + excluded.clicks`,
    );
    const addHost = statement(
      `INSERT INTO link_daily_referrers (code, day, host, clicks) VALUES (?, ?, ?, ?)
       ON CONFLICT (code, day, host) DO UPDATE SET clicks = clicks + excluded.clicks`,
    );
    const addDaily = (/** @type {Total} */ total) => {
      for (const [day, { clicks, referrers }] of total.days) {
        addDay.run(total.code, day, clicks);
        for (const [host, hostClicks] of referrers) addHost.run(total.code, day, host, hostClicks);
      }
    };

    // Each code's rowid, from the code index alone (it holds the rowid), in code order: the
    // index is read front to back once.
    const rowidOf = statement('SELECT rowid FROM links WHERE code = ?').pluck();
    const codes = [...totals.keys()].sort();
    await pacer.slice();
    /** @type {number[]} */
    const rowids = [];
    /** @type {Total[]} */
    const found = [];
    const lookUp = db.transaction((/** @type {string[]} */ part) => {
      for (const code of part) {
        const rowid = /** @type {number | undefined} */ (rowidOf.get(code));
        if (rowid === undefined) continue;
        rowids.push(rowid);
        found.push(/** @type {Total} */ (totals.get(code)));
      }
    });
    for (let start = 0; start < codes.length; start += FOLD_LOOKUPS_PER_TRANSACTION) {
      lookUp(codes.slice(start, start + FOLD_LOOKUPS_PER_TRANSACTION));
      await pacer.slice();
    }
    // Then the rows in table order: each page is read and written once, its rows updated
    // together.
    const order = tableOrder(rowids);
    await pacer.slice();

    // The usual case in one statement: the row is still the one found, and every logged batch
    // with its code is new to it and was closed after it was created.
    const addAll = statement(
      `UPDATE links SET clicks = clicks + ?, clicks_through_batch = ?
       WHERE rowid = ? AND code = ? AND clicks_through_batch < ? AND created_at <= ?`,
    );
    // Otherwise the row is read (as an array: an object per row cost a sixth of a fold's time).
    const rowAt = statement('SELECT code, created_at, clicks_through_batch FROM links WHERE rowid = ?').raw();
    const add = statement('UPDATE links SET clicks = clicks + ?, clicks_through_batch = ? WHERE rowid = ?');
    const addSome = db.transaction((/** @type {number} */ from, /** @type {number} */ to) => {
      for (let k = from; k < to; k++) {
        const i = order[k];
        const rowid = rowids[i];
        const total = found[i];
        const { code, clicks, firstId, firstLoggedAt } = total;
        if (addAll.run(clicks, through, rowid, code, firstId, firstLoggedAt).changes > 0) {
          addDaily(total);
          continue;
        }
        let at = rowid;
        let row = /** @type {LinkRow | undefined} */ (rowAt.get(at));
        if (row?.[0] !== code) {
          // Deleted since it was found, maybe created again (under another rowid).
          const moved = /** @type {number | undefined} */ (rowidOf.get(code));
          if (moved === undefined) continue;
          at = moved;
          row = /** @type {LinkRow} */ (rowAt.get(at));
        }
        if (row[2] >= through) continue;
        const some = clicksFor(code, row);
        add.run(some.clicks, through, at);
        addDaily(some);
      }
    });
    for (let start = 0; start < order.length; start += FOLD_ROWS_PER_TRANSACTION) {
      // IMMEDIATE: take the write lock up front, so a read that turns into a write cannot fail
      // with SQLITE_BUSY_SNAPSHOT when another connection wrote meanwhile.
      addSome.immediate(start, Math.min(order.length, start + FOLD_ROWS_PER_TRANSACTION));
      await pacer.slice();
    }
    statement('DELETE FROM click_batches WHERE id <= ?').run(through);
    foldMsPerLoggedChar = pacer.finish() / loggedChars;
    return through;
  } finally {
    folding = false;
    foldPacer = undefined;
  }
}

/** A fold's rows at most, for tableOrder's fast path: 2^21 positions fit below the rowid. */
const POSITIONS = 2 ** 21;

/**
 * The positions of `rowids` (distinct) in ascending rowid order. Sorted as numbers, each rowid
 * packed with its position (rowid × 2^21 + position, exact in a double for rowids below 2^32):
 * a typed array's native sort takes a fraction of the time of a comparator sort, which the
 * rare larger cases fall back to.
 * @param {number[]} rowids
 * @returns {ArrayLike<number>}
 */
function tableOrder(rowids) {
  const n = rowids.length;
  if (n >= POSITIONS || rowids.some((rowid) => rowid >= 2 ** 32 || rowid < 0)) {
    return Array.from(rowids.keys()).sort((a, b) => rowids[a] - rowids[b]);
  }
  const packed = new Float64Array(n);
  for (let i = 0; i < n; i++) packed[i] = rowids[i] * POSITIONS + i;
  packed.sort();
  const order = new Uint32Array(n);
  for (let k = 0; k < n; k++) order[k] = packed[k] % POSITIONS;
  return order;
}

/**
 * @typedef {[day: string, clicks: number, referrers: [string, number][]]} DayCounts
 * @typedef {{ code: string, clicks: number, firstId: number, firstLoggedAt: string,
 *   days: Map<string, { clicks: number, referrers: Map<string, number> }> }} Total
 */

/**
 * A click-log row's counts (see click-tally.ts, `serializeTally`): `[[code, [[day, clicks,
 * [[host, clicks], …]], …]], …]`; rows logged before daily counts existed hold `[[code,
 * clicks], …]`, whose clicks count on the day they were logged, with no referrer.
 * @param {string} json
 * @param {string} loggedAt
 * @returns {Map<string, DayCounts[]>}
 */
function parseCounts(json, loggedAt) {
  const entries = /** @type {[string, number | DayCounts[]][]} */ (JSON.parse(json));
  return new Map(
    entries.map(([code, value]) => [code, typeof value === 'number' ? [[loggedAt.slice(0, 10), value, []]] : value]),
  );
}

/**
 * @param {Total} total
 * @param {DayCounts[]} days
 */
function addDays(total, days) {
  for (const [day, clicks, referrers] of days) {
    total.clicks += clicks;
    let tally = total.days.get(day);
    if (!tally) {
      tally = { clicks: 0, referrers: new Map() };
      total.days.set(day, tally);
    }
    tally.clicks += clicks;
    for (const [host, hostClicks] of referrers) tally.referrers.set(host, (tally.referrers.get(host) ?? 0) + hostClicks);
  }
}
/** @typedef {[code: string, createdAt: string, throughBatch: number]} LinkRow */

/**
 * @param {Request} request
 * @param {import('better-sqlite3').RunResult} [result]  what a 'run' did
 */
function done(request, result) {
  port.postMessage({
    type: 'done',
    id: request.id,
    changes: result?.changes ?? 0,
    lastInsertRowid: Number(result?.lastInsertRowid ?? 0),
  });
}

/**
 * The driver's code (SQLITE_BUSY, SQLITE_CONSTRAINT_…) travels along: the application maps it as
 * it maps the same error from Prisma's connection.
 * @param {Request} request
 * @param {unknown} error
 */
function fail(request, error) {
  const code = /** @type {{ code?: unknown }} */ (error).code;
  port.postMessage({
    type: 'failed',
    id: request.id,
    message: error instanceof Error ? error.message : String(error),
    code: typeof code === 'string' ? code : undefined,
  });
}

port.postMessage({ type: 'ready' });
