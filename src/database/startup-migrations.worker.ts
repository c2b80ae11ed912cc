// The thread prepareDatabaseOnThread runs the start-up migrations on (see prepare-database-thread.ts).
import { parentPort, workerData } from 'node:worker_threads';
import type { DatabaseTarget } from '../../prisma/engine/database-url.js';
import { MigrationError } from './migration-error.js';
import type { MigrationThreadMessage } from './prepare-database-thread.js';
import { prepareDatabase } from './startup-migrations.js';

const { database, migrateOnStart } = workerData as { database: DatabaseTarget; migrateOnStart: boolean };
const port = parentPort!;
const send = (message: MigrationThreadMessage) => port.postMessage(message);

prepareDatabase(database, { migrateOnStart, log: (message) => send({ log: message }) }).then(
  () => send({ done: true }),
  (error: unknown) =>
    send({
      failed: {
        migration: error instanceof MigrationError,
        message: error instanceof Error ? error.message : String(error),
        stack: error instanceof Error ? error.stack : undefined,
      },
    }),
);
