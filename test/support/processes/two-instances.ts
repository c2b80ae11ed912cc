import { TEST_REDIS_URL } from './redis-server.js';
import { startTestApp, type TestApp } from '../test-app.js';
import { createTestDatabase, type TestDatabase } from '../database/test-database.js';

/** Two instances of the service on one fresh database and the test Redis. */
export interface TwoInstances {
  database: TestDatabase;
  a: TestApp;
  b: TestApp;
  /** Stops both instances and drops the database. */
  close(): Promise<void>;
}

/**
 * Two instances sharing one database and one Redis, as they run behind a load balancer: what a
 * spec needs to show that a cache, a limit or a change on one instance holds on the other. Both
 * get `env`, with the test Redis as `REDIS_URL`.
 */
export async function startTwoInstances(env: Record<string, string>): Promise<TwoInstances> {
  const database = await createTestDatabase();
  const shared = { REDIS_URL: TEST_REDIS_URL, ...env };
  const started: TestApp[] = [];
  const close = async () => {
    for (const instance of started) await instance.close();
    await database.drop();
  };
  try {
    started.push(await startTestApp(shared, database));
    started.push(await startTestApp(shared, database));
  } catch (error) {
    await close();
    throw error;
  }
  const [a, b] = started;
  return { database, a, b, close };
}
