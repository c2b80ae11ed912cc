import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Worker } from 'node:worker_threads';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { sqliteFileOf } from '../../prisma/engine/database-url.js';
import type { WriterOptions, WriterReply, WriterRequestBody } from './sqlite-writer-protocol.js';

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

/**
 * Running from the TypeScript sources (the tests, `node --import …/swc-register.mjs src/main.ts`):
 * the worker thread and the task modules are .ts files, and the thread needs the same
 * transpiler. From dist/ they are the compiled .js files and the thread needs nothing.
 */
const FROM_SOURCE = import.meta.url.endsWith('.ts');

/**
 * The URL of module `name` (no extension) beside the file at `metaUrl` (its `import.meta.url`),
 * as the writer's thread must import it: for registering a task (`registerTask`).
 */
export function siblingModule(metaUrl: string, name: string): string {
  return new URL(`./${name}${FROM_SOURCE ? '.ts' : '.js'}`, metaUrl).href;
}

/** What a statement did: rows changed, and the rowid of the last row it inserted. */
interface RunResult {
  changes: number;
  lastInsertRowid: number;
}

interface PendingRequest {
  resolve(result: RunResult): void;
  reject(error: Error): void;
}

/** No worker runs right now: the caller may do the write on the application's connection. */
export class SqliteWriterUnavailableError extends Error {
  override readonly name = 'SqliteWriterUnavailableError';
}

/** An error of the worker's connection, with the driver's code (`SQLITE_BUSY`, …) as `code`. */
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
 * click counter retries its batches, link inserts go through Prisma). On PostgreSQL, whose driver
 * is asynchronous, this class does nothing.
 */
@Injectable()
export class SqliteBackgroundWriter implements OnApplicationShutdown {
  private readonly logger = new Logger(SqliteBackgroundWriter.name);
  private worker?: Worker;
  private starting?: Promise<void>;
  private readonly pending = new Map<number, PendingRequest>();
  private nextId = 0;
  /** No new worker is started before this time (ms since the epoch). */
  private retryAfter = 0;
  private closing = false;
  private readonly tasks: Record<string, string> = {};

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Whether writes should go through `run` (the database is SQLite). */
  get databaseIsSqlite(): boolean {
    return this.config.databaseKind === 'sqlite';
  }

  /**
   * Runs one statement on the worker's connection and resolves, once committed, with the number
   * of rows it changed. Rejects with `SqliteWriterUnavailableError` when no worker runs (nothing
   * was written) and with `SqliteWriteError` when the statement fails.
   */
  async run(sql: string, params: unknown[]): Promise<number> {
    return (await this.runReturningRowid(sql, params)).changes;
  }

  /** `run`, also resolving with the rowid of the row the statement inserted. */
  async runReturningRowid(sql: string, params: unknown[]): Promise<RunResult> {
    await this.ensureStarted();
    return this.request({ type: 'run', sql, params });
  }

  /**
   * Makes a long task available to `runTask`: `moduleUrl` (see `siblingModule`) exports `run`, a
   * `WriterTask`. Register before the first write (in a constructor): the worker learns its
   * tasks when it starts.
   */
  registerTask(name: string, moduleUrl: string): void {
    this.tasks[name] = moduleUrl;
  }

  /**
   * Runs a registered task on the worker's connection, one at a time, with other requests
   * handled between its slices; resolves with what it resolves with.
   */
  async runTask(name: string, args: unknown): Promise<number> {
    await this.ensureStarted();
    return (await this.request({ type: 'task', name, args })).changes;
  }

  /** The paced task under way, if any, goes on at full speed (at shutdown, so that it does not hold it up). */
  async hurry(): Promise<void> {
    if (!this.worker) return;
    await this.request({ type: 'hurry' });
  }

  // Global modules shut down last, so whoever flushes batches at shutdown (the click counter)
  // has done so before this runs.
  async onApplicationShutdown(): Promise<void> {
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
    if (!this.databaseIsSqlite) throw new SqliteWriterUnavailableError('The database is not SQLite');
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
    const workerData: WriterOptions = {
      file: sqliteFileOf(this.config.database),
      busyTimeoutMs: 5000,
      tasks: { ...this.tasks },
    };
    const worker = new Worker(new URL(siblingModule(import.meta.url, 'sqlite-background-writer.worker')), {
      workerData,
      // None of the parent's flags (Jest's, --eval input options) apply to the thread, and some
      // would stop it from starting; from the sources it needs the transpiler the child-process
      // specs use.
      execArgv: FROM_SOURCE ? ['--import', new URL('../../test/support/swc-register.mjs', import.meta.url).href] : [],
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    });
    await new Promise<void>((resolve, reject) => {
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
    worker.on('message', (reply: WriterReply) => this.onReply(reply));
    worker.on('error', (error) => this.logger.error(`SQLite background writer failed: ${error.message}`));
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
        this.settle(reply.id)?.resolve({ changes: reply.changes, lastInsertRowid: reply.lastInsertRowid });
        break;
      case 'failed':
        this.settle(reply.id)?.reject(new SqliteWriteError(reply.message, reply.code));
        break;
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
