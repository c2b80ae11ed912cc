import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_REDIS_URL } from './support/processes/redis-server.js';
import { startServerProcess } from './support/processes/server-process.js';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from './support/database/test-database.js';

const PROBE = fileURLToPath(new URL('./support/probes/loaded-packages-probe.mjs', import.meta.url));

/**
 * What a running service loads stays loaded, on its heap, for the life of the process. The
 * drivers of the database kind not in use and the Redis client without REDIS_URL are loaded only
 * when needed (src/database/database-connections.ts, src/redis/redis.connection.ts,
 * prisma/engine/wasm-engine.js; docs/performance.md, "Memory").
 */
describe('packages a running service loads', () => {
  const kind = testDatabaseKind();
  let database: TestDatabase;
  let dir: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'loaded-packages-'));
  });
  afterAll(async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Starts the service (migrations, start-up, a link created and followed), stops it, and lists the packages it loaded. */
  async function packagesLoaded(name: string, env: Record<string, string> = {}): Promise<string[]> {
    const file = join(dir, name);
    const server = await startServerProcess({
      DATABASE_URL: database.url,
      NODE_OPTIONS: `--import ${PROBE}`,
      LOADED_PACKAGES_FILE: file,
      ...env,
    });
    try {
      const created = await fetch(`${server.baseUrl}/api/links`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://example.com/loaded' }),
      });
      expect(created.status).toBe(201);
      const { code } = (await created.json()) as { code: string };
      expect((await fetch(`${server.baseUrl}/${code}`, { redirect: 'manual' })).status).toBe(302);
    } finally {
      const exit = await server.stop();
      expect(exit.status).toBe(0);
    }
    return readFileSync(file, 'utf8').split('\n');
  }

  it(`loads the ${kind} driver, not the other kind's, and no Redis client without REDIS_URL`, async () => {
    const loaded = await packagesLoaded('without-redis');
    if (kind === 'sqlite') {
      expect(loaded).toContain('better-sqlite3');
      expect(loaded).not.toContain('pg');
    } else {
      expect(loaded).toContain('pg');
      expect(loaded).not.toContain('better-sqlite3');
    }
    expect(loaded).not.toContain('ioredis');
  });

  it('loads the Redis client when REDIS_URL is set', async () => {
    expect(await packagesLoaded('with-redis', { REDIS_URL: TEST_REDIS_URL })).toContain('ioredis');
  });
});
