import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** Which database the end-to-end specs run on: set per Jest project (see jest.config.js). */
export function testDatabaseKind(): 'sqlite' | 'postgresql' {
  return process.env.TEST_DATABASE === 'postgresql' ? 'postgresql' : 'sqlite';
}

/** Admin connection used to create and drop the per-spec PostgreSQL databases. */
export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A brand-new, empty database of the configured kind, just for one spec file. */
export async function createTestDatabase(kind = testDatabaseKind()): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'shortlink-test-'));
    return {
      url: `file:${join(dir, 'test.db')}`,
      drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
    };
  }
  const name = `shortlink_test_${randomBytes(6).toString('hex')}`;
  await withAdmin((client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () =>
      withAdmin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
