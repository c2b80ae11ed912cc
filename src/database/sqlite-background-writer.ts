import { Logger } from '@nestjs/common';
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import { semiSpaceFlagMb } from '../node-flags.js';
import { DatabaseUnavailableError } from './database-unavailable.js';
import { threadEntry, threadExecArgv } from './threads.js';
import type {
  WriterOptions,
  WriterReply,
  WriterRequestBody,
  WriterStatement,
  WriterTask,
} from './sqlite-writer-protocol.js';

/** After an unexpected exit or a failed start, the next start is tried no sooner than this. */
const RESTART_DELAY_MS = 1000;
/** A shutdown does not wait longer than this for the final checkpoint. */
const CLOSE_TIMEOUT_MS = 10_000;
/**
 * The thread's V8 young generation, in MB. What it allocates (a message, a statement's
 * parameters) dies within a group commit; by default V8 let it grow to 8 MB of semi-spaces,
 * resident for the life of the thread.
 */
const WORKER_YOUNG_GENERATION_MB = 3;
/** The semi-space size that makes that young generation: V8 sizes it at three semi-spaces. */
const WORKER_SEMI_SPACE_MB = WORKER_YOUNG_GENERATION_MB / 3;

/** Resolves once `worker` says it is ready (its connection open); rejects if it fails or exits first. */
function startedUp(worker: Worker): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onExit = (code: number) =>
      reject(new Error(`SQLite background writer exited during start-up (code ${code})`));
    worker.once('error', reject);
    worker.once('exit', onExit);
    worker.once('message', (reply: WriterReply) => {
      worker.off('error', reject);
      worker.off('exit', onExit);
      if (reply.type === 'ready') resolve();
      else reject(new Error(`Unexpected first message from the SQLite background writer: ${reply.type}`));
    });
  });
}

/** What a statement did: rows changed, and the rowid of the last row it inserted (a query: its rows). */
interface RunResult {
  changes: number;
  lastInsertRowid: number;
  /** `runAll`: the rows each statement changed. */
  changesEach?: number[];
  /** `query`: the rows it returned. */
  rows?: unknown[];
}

interface PendingRequest {
  resolve(result: RunResult): void;
  reject(error: Error): void;
}

/** No worker runs right now: the caller may do the write on the application's connection. */
export class SqliteWriterUnavailableError extends Error {
  override readonly name = 'SqliteWriterUnavailableError';
}

/**
 * An error of the worker's connection, with the driver's code (`SQLITE_CONSTRAINT_…`) as `code`.
 * (SQLITE_BUSY, the file locked past the busy timeout, comes as `DatabaseUnavailableError`.)
 */
export class SqliteWriteError extends Error {
  override readonly name = 'SqliteWriteError';

  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** How Prisma's SQLite adapter stores a DateTime: ISO 8601 with an explicit UTC offset. */
export function toSqliteDateTime(date: Date): string {
  return date.toISOString().replace('Z', '+00:00');
}

/**
 * SQLite writes that must not run on the event loop, on a worker thread with its own connection.
 *
 * better-sqlite3 (the driver under Prisma's SQLite adapter) is synchronous, so a write blocks the
 * event loop for as long as it takes, and the commit that fills the WAL also checkpoints it into
 * the database file (fsync included). For the click counts of a busy second over 1M links, where
 * each distinct code's row sits on a page of its own, that was 35 ms per 500-code batch on the
 * benchmark machine, and cold redirects' p99 went from 21 ms at 10k links to 237 ms at 1M. The
 * hot writes (the click log and its folds, link inserts) therefore run here, checkpoints
 * included; the event loop only posts the rows and awaits the commit. Single statements that reach the worker together
 * share one transaction (group commit, see the worker), each acknowledged once it is committed.
 *
 * The worker starts with the first write. If it dies, a later write starts a new one, no sooner
 * than a second after; meanwhile writes are refused with `SqliteWriterUnavailableError` (the
 * click counter retries its batches, link inserts go through Prisma). It exists only on SQLite
 * (`SqliteConnections`); PostgreSQL's driver is asynchronous and needs nothing like it.
 */
export class SqliteBackgroundWriter {
  private readonly logger = new Logger(SqliteBackgroundWriter.name);
  private worker?: Worker;
  private starting?: Promise<void>;
  private readonly pending = new Map<number, PendingRequest>();
  private nextId = 0;
  /** No new worker is started before this time (ms since the epoch). */
  private retryAfter = 0;
  private closing = false;

  /** `file`: the SQLite database file, which must exist (start-up has created and migrated it). */
  constructor(private readonly file: string) {}

  /**
   * Runs one statement on the worker's connection and resolves, once committed, with the number
   * of rows it changed. Rejects with `SqliteWriterUnavailableError` when no worker runs (nothing
   * was written) and with `SqliteWriteError` when the statement fails.
   */
  async run(sql: string, params: unknown[]): Promise<number> {
    return (await this.runReturningRowid(sql, params)).changes;
  }

  /**
   * Runs `statements` in order on the worker's connection, written together or not at all (a
   * failing statement undoes the others), and resolves, once committed, with the number of rows
   * each changed. Rejects as `run` does.
   */
  async runAll(statements: WriterStatement[]): Promise<number[]> {
    await this.ensureStarted();
    return (await this.request({ type: 'runAll', statements })).changesEach ?? [];
  }

  /**
   * Runs `sql`, then the statements of `then`, in one transaction (all of them or none); resolves
   * once committed with the number of rows the first one changed.
   */
  async runWith(sql: string, params: unknown[], then: WriterStatement[]): Promise<number> {
    await this.ensureStarted();
    // Without follow-up statements, exactly a `run` (no savepoint of its own in a group).
    return (await this.request({ type: 'run', sql, params, ...(then.length > 0 ? { then } : {}) })).changes;
  }

  /** Runs one statement that returns rows (`UPDATE … RETURNING …`) and resolves with them once committed. */
  async query<Row>(sql: string, params: unknown[]): Promise<Row[]> {
    await this.ensureStarted();
    return ((await this.request({ type: 'query', sql, params })).rows ?? []) as Row[];
  }

  /** `run`, also resolving with the rowid of the row the statement inserted. */
  async runReturningRowid(sql: string, params: unknown[]): Promise<RunResult> {
    await this.ensureStarted();
    return this.request({ type: 'run', sql, params });
  }

  /**
   * Runs `task` on the worker's connection, one task at a time, with other requests handled
   * between its slices; resolves with what it resolves with.
   */
  async runTask<Args>(task: WriterTask<Args>, args: Args): Promise<number> {
    await this.ensureStarted();
    const { moduleUrl, exportName } = task;
    return (await this.request({ type: 'task', moduleUrl, exportName, args })).changes;
  }

  /** The paced task under way, if any, goes on at full speed (at shutdown, so that it does not hold it up). */
  async hurry(): Promise<void> {
    if (!this.worker) return;
    await this.request({ type: 'hurry' });
  }

  /**
   * Ends the thread after a final WAL checkpoint. Called by the DatabaseModule at shutdown, after
   * the feature modules' hooks: whoever flushes batches at shutdown (the click counter) has done
   * so before this runs.
   */
  async close(): Promise<void> {
    this.closing = true;
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    const timeout = setTimeout(() => void worker.terminate(), CLOSE_TIMEOUT_MS);
    try {
      await this.request({ type: 'close' });
    } catch (error) {
      this.logger.warn(`Final WAL checkpoint failed: ${String(error)}`);
      await worker.terminate();
    }
    await exited;
    clearTimeout(timeout);
  }

  /**
   * The worker starts with the first write, not with the application: a CLI command or an
   * instance that never creates a link or counts a click needs none.
   */
  private async ensureStarted(): Promise<void> {
    if (this.worker) return;
    if (this.closing) throw new SqliteWriterUnavailableError('The SQLite background writer has shut down');
    if (Date.now() < this.retryAfter)
      throw new SqliteWriterUnavailableError('The SQLite background writer is restarting');
    await this.start().catch((error: unknown) => {
      throw new SqliteWriterUnavailableError(`The SQLite background writer could not start: ${String(error)}`);
    });
  }

  private start(): Promise<void> {
    this.starting ??= this.spawn()
      .catch((error: unknown) => {
        this.retryAfter = Date.now() + RESTART_DELAY_MS;
        throw error;
      })
      .finally(() => {
        this.starting = undefined;
      });
    return this.starting;
  }

  private async spawn(): Promise<void> {
    const workerData: WriterOptions = { file: this.file, busyTimeoutMs: 5000 };
    const entry = threadEntry('sqlite-background-writer.worker');
    // A --max-semi-space-size on node's command line (the service starts with one, see
    // src/node-flags.ts) applies to every isolate V8 makes, over a worker's resourceLimits: the
    // thread's young generation then grew to 16 MiB during a click fold and stayed (about 14 MiB
    // of the process's peak). V8 reads the flag when it makes an isolate, so it is lowered until
    // the thread is running and set back; the main thread's heap, made long before, keeps its size.
    const semiSpaceMb = semiSpaceFlagMb(process.execArgv, process.env.NODE_OPTIONS);
    if (semiSpaceMb > 0) v8.setFlagsFromString(`--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`);
    // The same way, the thread gets gc(): a task's working set (a fold's part) is promoted out of
    // its small young generation, and its old generation was collected so rarely that an idle
    // writer kept the last fold's 4-11 MiB of garbage (TaskContext.collectGarbage). V8 gives gc()
    // to the contexts made while the flag is set: the thread's, and no one else's once it is off.
    v8.setFlagsFromString('--expose-gc');
    let worker: Worker;
    try {
      worker = new Worker(entry, {
        workerData,
        execArgv: threadExecArgv(),
        resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
      });
      await startedUp(worker);
    } finally {
      if (semiSpaceMb > 0) v8.setFlagsFromString(`--max-semi-space-size=${semiSpaceMb}`);
      v8.setFlagsFromString('--no-expose-gc');
    }
    worker.on('message', (reply: WriterReply) => this.onReply(reply));
    worker.on('error', (error: Error) => this.logger.error(`SQLite background writer failed: ${error.message}`));
    worker.on('exit', (code) => this.onExit(worker, code));
    // An idle worker must not keep a process (a CLI, a test) alive; a worker with requests in
    // flight must, or a shutdown awaiting the last batch would see the event loop drain and
    // the process exit before the batch is written (see `request`).
    worker.unref();
    this.worker = worker;
  }

  private request(message: WriterRequestBody): Promise<RunResult> {
    const worker = this.worker;
    if (!worker) return Promise.reject(new SqliteWriterUnavailableError('The SQLite background writer is not running'));
    const id = ++this.nextId;
    return new Promise<RunResult>((resolve, reject) => {
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ ...message, id });
    });
  }

  private onReply(reply: WriterReply): void {
    switch (reply.type) {
      case 'done':
        this.settle(reply.id)?.resolve({
          changes: reply.changes,
          lastInsertRowid: reply.lastInsertRowid,
          changesEach: reply.changesEach,
          rows: reply.rows,
        });
        break;
      case 'failed': {
        const error = new SqliteWriteError(reply.message, reply.code);
        this.settle(reply.id)?.reject(reply.code === 'SQLITE_BUSY' ? new DatabaseUnavailableError(error) : error);
        break;
      }
      case 'ready':
        break;
    }
  }

  private settle(id: number): PendingRequest | undefined {
    const request = this.pending.get(id);
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker?.unref();
    return request;
  }

  private onExit(worker: Worker, code: number): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    // Whether an in-flight request was committed is unknown: it is not "unavailable" (which
    // promises nothing was written), so callers do not blindly redo it.
    const error = new SqliteWriteError(`The SQLite background writer exited (code ${code})`);
    for (const request of this.pending.values()) request.reject(error);
    this.pending.clear();
    if (this.closing) return;
    this.retryAfter = Date.now() + RESTART_DELAY_MS;
    this.logger.error(`${error.message}; the next write starts a new one`);
  }
}
