// The worker thread behind SqliteBackgroundWriter (sqlite-background-writer.ts): SQLite writes
// that would otherwise stall the event loop, on a connection of its own. Generic: statements,
// and long tasks that feature modules declare (`defineWriterTask`, e.g. clicks/click-log-fold.ts).
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { TaskPacer } from './task-pacing.js';
import type { TaskContext, WriterOptions, WriterReply, WriterRequest, WriterTask } from './sqlite-writer-protocol.js';

/** A request that writes statements: grouped with its neighbours into one transaction (see `drain`). */
type WriteRequest = Extract<WriterRequest, { type: 'run' | 'runAll' }>;

/** What a write request changed (`changesEach`: per statement of a `runAll`). */
interface WriteResult {
  changes: number;
  lastInsertRowid: number | bigint;
  changesEach?: number[];
}

const options = workerData as WriterOptions;
const port = parentPort!;

const db = new Database(options.file, { fileMustExist: true, timeout: options.busyTimeoutMs });
// Same durability as the application's connection (see tuneSqlite): every commit is in the WAL
// before it is acknowledged.
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
// SQLite's own default page cache (2 MB) rather than better-sqlite3's 16 MB: the pages this
// connection writes are re-read from the operating system's page cache, where they are anyway,
// and 16 MB of this thread's heap stayed resident once a fold or bulk inserts had filled it.
db.pragma('cache_size = -2000');
// SQLite's automatic checkpoints stay on: the commit that fills the WAL copies it back into the
// database file (with an fsync), which takes tens of milliseconds, here on this thread.

const statements = new Map<string, Database.Statement>();

function statement(sql: string): Database.Statement {
  let prepared = statements.get(sql);
  if (!prepared) {
    prepared = db.prepare(sql);
    statements.set(sql, prepared);
  }
  return prepared;
}

function write(request: WriteRequest): WriteResult {
  if (request.type === 'run') {
    const result = statement(request.sql).run(...request.params);
    for (const next of request.then ?? []) statement(next.sql).run(...next.params);
    return result;
  }
  const changesEach = request.statements.map(({ sql, params }) => statement(sql).run(...params).changes);
  return { changes: changesEach[0] ?? 0, lastInsertRowid: 0, changesEach };
}

/**
 * One write request (a `run` with its `then`, or a `runAll`), all of its statements or none, in
 * a transaction: alone, its own; inside a group's (see `drain`), better-sqlite3 makes it a
 * SAVEPOINT, so a request that fails is undone alone and the others stay.
 */
const runInGroup = db.transaction(write);

/** Requests received and not answered yet, in arrival order. */
const received: WriterRequest[] = [];
let draining = false;

port.on('message', (request: WriterRequest) => {
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
 * request is written at once. Requests are answered in the order they came.
 */
function drain(): void {
  draining = false;
  const requests = received.splice(0);
  for (let i = 0; i < requests.length;) {
    let end = i;
    while (end < requests.length && isWrite(requests[end])) end++;
    if (end - i > 1) {
      runGroup(requests.slice(i, end) as WriteRequest[]);
      i = end;
    } else {
      handle(requests[i]);
      i++;
    }
  }
}

function isWrite(request: WriterRequest): request is WriteRequest {
  return request.type === 'run' || request.type === 'runAll';
}

function runGroup(group: WriteRequest[]): void {
  const results: Array<WriteResult | undefined> = [];
  const errors: unknown[] = [];
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

/** The pacer of the task under way, if it paces itself: a `hurry` request speeds it up. */
let pacer: TaskPacer | undefined;
let taskRunning = false;
const context: TaskContext = {
  pace(duty) {
    pacer = new TaskPacer(duty);
    return pacer;
  },
  collectGarbage,
};

/** `gc`, given to this thread alone when it is started (see SqliteBackgroundWriter.spawn). */
const fullCollection = (globalThis as { gc?: () => void }).gc;

function collectGarbage(): void {
  fullCollection?.();
}

type TaskRequest = Extract<WriterRequest, { type: 'task' }>;

/** One task at a time; other requests are handled between its slices. */
async function runTask({ moduleUrl, exportName, args }: TaskRequest): Promise<number> {
  if (taskRunning) throw new Error(`A task is already running`);
  taskRunning = true;
  try {
    const task = ((await import(moduleUrl)) as Record<string, Partial<WriterTask<unknown>> | undefined>)[exportName];
    if (typeof task?.run !== 'function') throw new Error(`${moduleUrl} exports no writer task called ${exportName}`);
    return await task.run(db, args, context);
  } finally {
    taskRunning = false;
    pacer = undefined;
    // What the task held is garbage now; the thread's old generation is rarely collected otherwise.
    collectGarbage();
  }
}

function handle(request: WriterRequest): void {
  try {
    let result: WriteResult | undefined;
    switch (request.type) {
      case 'run':
        result = request.then ? runInGroup(request) : statement(request.sql).run(...request.params);
        break;
      case 'runAll':
        result = runInGroup(request);
        break;
      case 'query': {
        const rows = statement(request.sql).all(...request.params);
        reply({ type: 'done', id: request.id, changes: rows.length, lastInsertRowid: 0, rows });
        return;
      }
      case 'task':
        // Asynchronous: it answers for itself.
        runTask(request).then(
          (value) => done(request, { changes: value, lastInsertRowid: 0 }),
          (error: unknown) => fail(request, error),
        );
        return;
      case 'hurry':
        if (pacer) pacer.duty = 1;
        break;
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
    done(request, result);
  } catch (error) {
    fail(request, error);
  }
}

function reply(message: WriterReply): void {
  port.postMessage(message);
}

function done(request: WriterRequest, result?: WriteResult): void {
  reply({
    type: 'done',
    id: request.id,
    changes: result?.changes ?? 0,
    lastInsertRowid: Number(result?.lastInsertRowid ?? 0),
    changesEach: result?.changesEach,
  });
}

/**
 * The driver's code (SQLITE_BUSY, SQLITE_CONSTRAINT_…) travels along: the application maps it as
 * it maps the same error from Prisma's connection.
 */
function fail(request: WriterRequest, error: unknown): void {
  const code = (error as { code?: unknown }).code;
  reply({
    type: 'failed',
    id: request.id,
    message: error instanceof Error ? error.message : String(error),
    code: typeof code === 'string' ? code : undefined,
  });
}

reply({ type: 'ready' });
