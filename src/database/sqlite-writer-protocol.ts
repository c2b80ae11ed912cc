// The messages between SqliteBackgroundWriter (the event loop's side) and its worker thread,
// declared once for both.
import type Database from 'better-sqlite3';
import type { FoldPacer } from './fold-pacing.js';

/** What the worker is started with (`workerData`). */
export interface WriterOptions {
  file: string;
  busyTimeoutMs: number;
  /** The long tasks it can run: name → URL of the module whose `run` export runs it. */
  tasks: Record<string, string>;
}

export type WriterRequest =
  | { type: 'run'; id: number; sql: string; params: unknown[] }
  /** A long task (e.g. the click fold), run in slices between the other requests. */
  | { type: 'task'; id: number; name: string; args: unknown }
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
  /** `changes`: rows a `run` changed, or what a task resolved with. */
  | { type: 'done'; id: number; changes: number; lastInsertRowid: number }
  | { type: 'failed'; id: number; message: string; code?: string };

/** What a task gets besides its connection and arguments. */
export interface TaskContext {
  /** A pacer at `duty`, which a `hurry` request speeds up to full speed. */
  pace(duty: number): FoldPacer;
}

/** The `run` export of a task module. */
export type WriterTask = (db: Database.Database, args: unknown, context: TaskContext) => Promise<number>;
