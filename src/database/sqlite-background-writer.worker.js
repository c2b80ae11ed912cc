// @ts-check
// The worker thread behind SqliteBackgroundWriter (sqlite-background-writer.ts): SQLite writes
// that would otherwise stall the event loop, on a connection of its own.
//
// Plain JavaScript (type-checked through JSDoc) because a worker thread is started from a file:
// the same file then runs from src/ under the tests and from dist/ in production, where tsc
// copies it (allowJs).
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * @typedef {{ file: string, busyTimeoutMs: number }} WorkerOptions
 * @typedef {{ type: 'run', id: number, sql: string, params: unknown[] }
 *   | { type: 'batch', id: number, sql: string, rows: unknown[][] }
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
  return statement(request.sql).run(...request.params).changes;
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
  /** @type {(number | undefined)[]} */
  const changes = [];
  /** @type {unknown[]} */
  const errors = [];
  try {
    db.transaction(() => {
      group.forEach((request, index) => {
        try {
          changes[index] = runInGroup(request);
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
    if (errors[index] === undefined) done(request, changes[index] ?? 0);
    else fail(request, errors[index]);
  });
}

/** @param {Request} request */
function handle(request) {
  try {
    /** Rows changed, for 'run'. */
    let changes = 0;
    switch (request.type) {
      case 'run':
        changes = statement(request.sql).run(...request.params).changes;
        break;
      case 'batch': {
        const prepared = statement(request.sql);
        // One transaction: either every row is written or none is, so the caller can retry all.
        db.transaction(() => {
          for (const row of request.rows) prepared.run(...row);
        })();
        break;
      }
      case 'close':
        try {
          // TRUNCATE leaves an empty WAL behind when nothing else reads: a stopped service's
          // file is complete on its own.
          db.pragma('wal_checkpoint(TRUNCATE)');
        } finally {
          db.close();
          // With no listener left, the thread ends once the reply is sent.
          port.unref();
        }
        break;
    }
    done(request, changes);
  } catch (error) {
    fail(request, error);
  }
}

/**
 * @param {Request} request
 * @param {number} changes
 */
function done(request, changes) {
  port.postMessage({ type: 'done', id: request.id, changes });
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
