// First, before the modules that start the service load: see the file.
import './tick-object-shapes.js';
import v8 from 'node:v8';
import { createApp } from './app.factory.js';
import { ConfigError, loadConfig } from './config/app-config.js';
import { MigrationError } from './database/migration-error.js';
import { prepareDatabaseOnThread } from './database/prepare-database-thread.js';
import { missingNodeFlags, missingStartEnv, startCommand } from './node-flags.js';

/**
 * V8 settings that keep the service within a small machine's memory (docs/performance.md, "Memory"):
 *
 * - `--liftoff-only`: Prisma's query compiler and schema engine are WebAssembly modules of 3-5 MB.
 *   V8 compiles them with its baseline compiler (Liftoff) and then recompiles hot functions with
 *   its optimizing one (TurboFan), whose working memory for these large functions peaked at
 *   ~50 MB and stayed in the process's malloc arenas. Liftoff alone costs no measurable time here:
 *   no request on the hot paths goes through Prisma.
 * - `--heap-growing-percent`: after each full collection V8 lets the old generation grow to a
 *   multiple of what survived before collecting again; for this process it chose about 3 x, so
 *   the short-lived objects of API requests that outlive two young collections (every request in
 *   flight at that moment) piled up to 250 MB. 30 % more than the live heap (plus V8's own
 *   minimum step) bounds it, at the cost of more frequent, mostly concurrent, full collections.
 *
 * V8 reads the first when it compiles a WebAssembly module (the schema engine's, at migration)
 * and the second whenever a full collection sets the next limit, so setting them here, before
 * either, is enough. They apply to the service only, not to the CLI or the tests.
 */
function tuneV8(): void {
  v8.setFlagsFromString('--liftoff-only');
  v8.setFlagsFromString('--heap-growing-percent=30');
}

async function bootstrap(): Promise<void> {
  const config = loadConfig();
  // Node's own options, not the service's configuration: read where node reads them.
  const missing = [...missingStartEnv(process.env), ...missingNodeFlags(process.execArgv, process.env.NODE_OPTIONS)];
  if (missing.length > 0) {
    const msg =
      `started without ${missing.join(' ')}: the service holds more memory than it needs (start it with ` +
      `\`npm run start:prod\` or \`${startCommand()}\`; docs/operations.md, "Starting the service")`;
    console.error(JSON.stringify({ level: 40, time: Date.now(), msg }));
  }
  await prepareDatabaseOnThread(config.database, {
    migrateOnStart: config.migrateOnStart,
    log: (message) => console.error(JSON.stringify({ level: 30, time: Date.now(), msg: message })),
  });
  const app = await createApp(config);
  await app.listen(config.port, config.host);
}

tuneV8();
bootstrap().catch((error: unknown) => {
  // One clear line for configuration and migration problems; a stack only for real bugs.
  const message =
    error instanceof ConfigError || error instanceof MigrationError
      ? error.message
      : error instanceof Error
        ? (error.stack ?? error.message)
        : String(error);
  console.error(message);
  process.exit(1);
});
