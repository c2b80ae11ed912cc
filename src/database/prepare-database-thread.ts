import { Worker } from 'node:worker_threads';
import type { DatabaseTarget } from '../../prisma/engine/database-url.js';
import { MigrationError } from './migration-error.js';
import type { PrepareDatabaseOptions } from './startup-migrations.js';
import { threadEntry, threadExecArgv } from './threads.js';

/** What the migrations' thread tells the service: a log line, then done or failed. */
export type MigrationThreadMessage =
  { log: string } | { done: true } | { failed: { migration: boolean; message: string; stack?: string } };

/**
 * prepareDatabase (startup-migrations.ts) on a thread of its own, which ends with it: what the
 * schema engine loads is then freed when the thread exits, instead of staying in the service for
 * the life of the process. A process keeps every module it imported, and the engine keeps its
 * WebAssembly: 5.2 MiB of module bytes copied outside the heap, its memory, its compiled code,
 * the glue and the migrator's drivers (docs/performance.md, "Memory"). Same outcome, same log
 * lines and the same errors as prepareDatabase: a MigrationError with its one-line message, or the
 * unexpected error with its stack.
 */
export function prepareDatabaseOnThread(database: DatabaseTarget, options: PrepareDatabaseOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let outcome: MigrationThreadMessage | undefined;
    const worker = new Worker(threadEntry('startup-migrations.worker'), {
      workerData: { database, migrateOnStart: options.migrateOnStart },
      execArgv: threadExecArgv(),
    });
    worker.on('message', (message: MigrationThreadMessage) => {
      if ('log' in message) return options.log(message.log);
      outcome = message;
      // Its work is done and its connections closed: end it now, whatever timers the engine left.
      void worker.terminate();
    });
    worker.once('error', reject);
    // Settled when the thread has ended (its connections were closed before it said so: the
    // SQLite file and the PostgreSQL migration lock are released before the service opens its own).
    worker.once('exit', (code) => {
      if (outcome && 'done' in outcome) return resolve();
      if (outcome && 'failed' in outcome) {
        const { migration, message, stack } = outcome.failed;
        const error = migration ? new MigrationError(message) : new Error(message);
        if (!migration && stack) error.stack = stack;
        return reject(error);
      }
      reject(new Error(`The database migrations' thread exited (code ${code}) before it finished`));
    });
  });
}
