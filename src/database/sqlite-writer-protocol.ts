// The messages between SqliteBackgroundWriter (the event loop's side) and its worker thread,
// declared once for both, and the tasks the thread runs.
import type Database from 'better-sqlite3';
import type { TaskPacer } from './task-pacing.js';

/** What the worker is started with (`workerData`). */
export interface WriterOptions {
  file: string;
  busyTimeoutMs: number;
}

/** One statement and its parameters. */
export interface WriterStatement {
  sql: string;
  params: unknown[];
}

export type WriterRequest =
  /**
   * A statement, and the statements of `then` after it in the same transaction (all of them or
   * none: e.g. a link and its webhook messages, the transactional outbox).
   */
  | { type: 'run'; id: number; sql: string; params: unknown[]; then?: WriterStatement[] }
  /** Statements run in order and committed together or not at all (a savepoint of their own in a group). */
  | { type: 'runAll'; id: number; statements: WriterStatement[] }
  /** One statement that returns rows (`… RETURNING …`), in a transaction of its own. */
  | { type: 'query'; id: number; sql: string; params: unknown[] }
  /** A long task (see `WriterTask`), run in slices between the other requests. */
  | { type: 'task'; id: number; moduleUrl: string; exportName: string; args: unknown }
  /** The paced task under way, if any, goes on at full speed (at shutdown). */
  | { type: 'hurry'; id: number }
  | { type: 'close'; id: number };

/** A request as the writer sends it: the id is added on the way. */
export type WriterRequestBody = WriterRequest extends infer R
  ? R extends WriterRequest
    ? Omit<R, 'id'>
    : never
  : never;

export type WriterReply =
  | { type: 'ready' }
  /**
   * `changes`: rows a `run` changed (its first statement), or what a task resolved with;
   * `changesEach`: the rows each statement of a `runAll` changed; `rows`: a query's.
   */
  | { type: 'done'; id: number; changes: number; lastInsertRowid: number; changesEach?: number[]; rows?: unknown[] }
  | { type: 'failed'; id: number; message: string; code?: string };

/** What a task gets besides its connection and arguments. */
export interface TaskContext {
  /** A pacer at `duty`, which a `hurry` request speeds up to full speed. */
  pace(duty: number): TaskPacer;
  /**
   * Collects the thread's garbage now (a full collection): for a task that has just let go of a
   * large working set (a part of a fold), which would otherwise stay resident until V8 next
   * collects the thread's old generation.
   */
  collectGarbage(): void;
}

/**
 * A long piece of work that runs on the writer's thread and connection (e.g. the click fold),
 * declared by the feature that owns it with `defineWriterTask`. The thread finds it by the URL
 * of the module that declares it and the name it is exported under; `Args` types what
 * `SqliteBackgroundWriter.runTask` sends it (structured-cloned to the thread).
 */
export interface WriterTask<Args> {
  readonly moduleUrl: string;
  readonly exportName: string;
  readonly run: (db: Database.Database, args: Args, context: TaskContext) => Promise<number>;
}

/**
 * Declares a writer task: `export const foldClickLog = defineWriterTask<FoldArgs>(import.meta.url,
 * 'foldClickLog', async (db, args, context) => …)`. `exportName` must be the name of that export.
 */
export function defineWriterTask<Args>(
  moduleUrl: string,
  exportName: string,
  run: WriterTask<Args>['run'],
): WriterTask<Args> {
  return { moduleUrl, exportName, run };
}
