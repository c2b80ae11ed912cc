import { createApp } from './app.factory.js';
import { ConfigError, loadConfig } from './config/app-config.js';
import { MigrationError, prepareDatabase } from './database/startup-migrations.js';

async function bootstrap(): Promise<void> {
  const config = loadConfig();
  await prepareDatabase(config.database, {
    migrateOnStart: config.migrateOnStart,
    log: (message) => console.error(JSON.stringify({ level: 30, time: Date.now(), msg: message })),
  });
  const app = await createApp(config);
  await app.listen(config.port, config.host);
}

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
