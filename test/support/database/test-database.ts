import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** Which database the end-to-end specs run on: set per Jest project (see jest.config.js). */
export function testDatabaseKind(): 'sqlite' | 'postgresql' {
  return process.env.TEST_DATABASE === 'postgresql' ? 'postgresql' : 'sqlite';
}

/**
 * `describe` for one kind of database: each Jest project (see jest.config.js) sets TEST_DATABASE
 * and covers its own kind; run outside those projects, a file covers both. The other kind's block
 * is not registered at all (rather than skipped): it runs in the other project.
 */
export const describeOn =
  (kind: 'sqlite' | 'postgresql') =>
  (name: string, body: () => void): void => {
    if ((process.env.TEST_DATABASE ?? kind) === kind) describe(name, body);
  };

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

function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  return withPostgres(TEST_POSTGRES_URL, work);
}

/** `work` on a connection of its own to the PostgreSQL database at `url`, closed after it. */
export async function withPostgres<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
