import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../src/app.factory.js';
import { loadConfig, type AppConfig } from '../../src/config/app-config.js';
import { prepareDatabase } from '../../src/database/startup-migrations.js';
import { createTestDatabase, type TestDatabase } from './database/test-database.js';

/**
 * Short URLs in tests use this base (https, as in production); a spec follows one by requesting
 * `/<code>` from `TestApp.baseUrl`.
 */
export const TEST_SHORT_BASE_URL = 'https://sl.test';

export interface TestApp {
  app: NestFastifyApplication;
  config: AppConfig;
  database: TestDatabase;
  /** http://127.0.0.1:<port> of the running server. */
  baseUrl: string;
  /** fetch() against the server: `request('/api/links', { method: 'POST', json: {...} })`. */
  request(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Boots the real application, exactly as main.ts does, on a freshly migrated database of the
 * kind under test, listening on a random loopback port.
 */
export async function startTestApp(env: Record<string, string> = {}, existing?: TestDatabase): Promise<TestApp> {
  const database = existing ?? (await createTestDatabase());
  const config = loadConfig({
    DATABASE_URL: database.url,
    SHORT_BASE_URL: TEST_SHORT_BASE_URL,
    LOG_LEVEL: 'silent',
    ...env,
  });
  await prepareDatabase(config.database, { migrateOnStart: true, log: () => undefined });
  const app = await createApp(config);
  // A spec that needs the address before start-up (e.g. SHORT_BASE_URL=http://localhost:PORT for
  // passkeys) passes PORT; otherwise any free port.
  await app.listen(env.PORT ? Number(env.PORT) : 0, '127.0.0.1');
  const baseUrl = (await app.getUrl()).replace('[::1]', '127.0.0.1');

  return {
    app,
    config,
    database,
    baseUrl,
    request: (path, init = {}) => {
      const { json, headers, ...rest } = init;
      return fetch(`${baseUrl}${path}`, {
        redirect: 'manual',
        ...rest,
        headers: json === undefined ? headers : { 'content-type': 'application/json', ...headers },
        body: json === undefined ? rest.body : JSON.stringify(json),
      });
    },
    close: async () => {
      await app.close();
      if (!existing) await database.drop();
    },
  };
}
