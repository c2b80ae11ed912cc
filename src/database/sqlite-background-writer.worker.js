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

port.on('message', (/** @type {Request} */ request) => {
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
    port.postMessage({ type: 'done', id: request.id, changes });
  } catch (error) {
    // The driver's code (SQLITE_BUSY, SQLITE_CONSTRAINT_…) travels along: the application maps
    // it as it maps the same error from Prisma's connection.
    const code = /** @type {{ code?: unknown }} */ (error).code;
    port.postMessage({
      type: 'failed',
      id: request.id,
      message: error instanceof Error ? error.message : String(error),
      code: typeof code === 'string' ? code : undefined,
    });
  }
});

port.postMessage({ type: 'ready' });
