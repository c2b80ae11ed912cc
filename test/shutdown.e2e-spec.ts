import Database from 'better-sqlite3';
import { request as httpRequest } from 'node:http';
import pg from 'pg';
import { sqliteFilePath } from '../prisma/engine/database-url.js';
import { createTestDatabase, type TestDatabase } from './support/database/test-database.js';
import { runSource } from './support/processes/run-source.js';
import { startServerProcess, type ServerProcess } from './support/processes/server-process.js';
import { startTestApp } from './support/test-app.js';

const BROWSER =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36';

/** One statement on a database of either kind, outside the service. */
async function runSql(url: string, sql: string): Promise<void> {
  if (url.startsWith('file:')) {
    const db = new Database(sqliteFilePath(url));
    db.exec(sql);
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(sql);
  await client.end();
}

/** The real server as `npm start` runs it (from source), on a fresh database of the kind under test. */
describe('server process', () => {
  it('refuses a bad PORT with one line naming it, no stack trace, exit status 1', async () => {
    const result = await runSource('src/main.ts', [], {
      PORT: 'abc',
      DATABASE_URL: 'file:/nonexistent/never-created.db',
    });

    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('Invalid configuration: PORT="abc" must be an integer number\n');
  });

  it('refuses an unknown DATABASE_URL scheme with one line naming it', async () => {
    const result = await runSource('src/main.ts', [], { DATABASE_URL: 'mysql://localhost/shortlink' });

    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('DATABASE_URL');
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  it('stops with one line when migrations are pending and MIGRATE_ON_START is false', async () => {
    const database = await createTestDatabase();
    try {
      const result = await runSource('src/main.ts', [], {
        DATABASE_URL: database.url,
        MIGRATE_ON_START: 'false',
        PORT: '0',
      });

      expect(result.status).toBe(1);
      const lines = result.stderr.trim().split('\n');
      expect(lines[lines.length - 1]).toMatch(
        /^The database has \d+ pending migration\(s\): .*npx prisma migrate deploy/,
      );
      expect(result.stderr).not.toMatch(/^\s+at /m);
    } finally {
      await database.drop();
    }
  });

  it('stops with one line when the migrations cannot be applied', async () => {
    const database = await createTestDatabase();
    try {
      // A table of someone else's in the way: the engine refuses to migrate a schema that is not empty.
      await runSql(database.url, 'CREATE TABLE links (unrelated INTEGER)');
      const result = await runSource('src/main.ts', [], { DATABASE_URL: database.url, PORT: '0' });

      expect(result.status).toBe(1);
      const lines = result.stderr.trim().split('\n');
      expect(lines[lines.length - 1]).toMatch(/^Applying migrations failed: The database schema is not empty/);
      expect(result.stderr).not.toMatch(/^\s+at /m);
    } finally {
      await database.drop();
    }
  });

  describe('on SIGTERM', () => {
    let database: TestDatabase;
    let server: ServerProcess | undefined;
    let token: string;

    beforeAll(async () => {
      database = await createTestDatabase();
      const env = { DATABASE_URL: database.url };
      expect((await runSource('src/cli/main.ts', ['account', 'create', 'ops@example.test'], env)).status).toBe(0);
      const created = await runSource('src/cli/main.ts', ['token', 'create', 'ops@example.test'], env);
      expect(created.status).toBe(0);
      token = created.stdout.trim();
    });

    afterAll(async () => {
      if (server) server.child.kill('SIGKILL');
      await database.drop();
    });

    it('finishes in-flight requests, persists buffered clicks and exits 0', async () => {
      // Clicks are only written at shutdown (the interval is far longer than the test).
      server = await startServerProcess({
        DATABASE_URL: database.url,
        CLICK_FLUSH_INTERVAL_MS: '60000',
        LOG_LEVEL: 'info',
      });
      const baseUrl = server.baseUrl;
      const created = await fetch(`${baseUrl}/api/links`, {
        method: 'POST',
        headers: { 'x-api-key': token, 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://example.com/before-shutdown' }),
      });
      expect(created.status).toBe(201);
      const { code } = (await created.json()) as { code: string };
      for (let i = 0; i < 7; i++) {
        const redirect = await fetch(`${baseUrl}/${code}`, {
          redirect: 'manual',
          // A person's browser: fetch's own user agent (`node`) is a script's, counted as a bot.
          headers: { 'user-agent': BROWSER, ...(i < 3 ? { referer: 'https://news.example/story' } : {}) },
        });
        expect(redirect.status).toBe(302);
      }

      // Slow clients, each on its own connection: the server has their headers and half of each
      // body when SIGTERM arrives, so these requests are in flight for sure.
      const slowCreate = (custom: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const body = JSON.stringify({ url: `https://example.com/${custom}`, custom_code: custom });
          const req = httpRequest(`${baseUrl}/api/links`, {
            method: 'POST',
            agent: false,
            headers: {
              'x-api-key': token,
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
            },
          });
          req.on('error', reject);
          req.on('response', (res) => {
            let text = '';
            res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
          });
          req.flushHeaders();
          req.write(body.slice(0, 10));
          setTimeout(() => req.end(body.slice(10)), 1000);
        });
      const codes = Array.from({ length: 20 }, (_, i) => `in-flight-${i}`);
      const inFlight = Promise.all(codes.map(slowCreate));
      await new Promise((resolve) => setTimeout(resolve, 400));

      server.child.kill('SIGTERM');
      const [results, exit] = await Promise.all([inFlight, server.exited]);
      server = undefined;

      expect(results.map((result) => result.status)).toEqual(codes.map(() => 201));
      expect(results.map((result) => (JSON.parse(result.body) as { code: string }).code)).toEqual(codes);
      expect(exit.signal).toBeNull();
      expect(exit.status).toBe(0);
      expect(exit.stderr).not.toMatch(/error/i);

      // Read back through a fresh app on the same database: nothing was lost.
      const after = await startTestApp({}, database);
      try {
        const link = await after.request(`/api/links/${code}`, { headers: { 'x-api-key': token } });
        expect(await link.json()).toMatchObject({ code, clicks: 7 });
        const clicks = await after.request(`/api/links/${code}/clicks?days=1`, { headers: { 'x-api-key': token } });
        expect(await clicks.json()).toEqual({
          code,
          total: 7,
          days: [{ date: new Date().toISOString().slice(0, 10), clicks: 7, bots: 0 }],
          bots: 0,
          referrers: [
            { host: '(direct)', clicks: 4 },
            { host: 'news.example', clicks: 3 },
          ],
          // The clicks' labels survive the restart too (from loopback: no country).
          countries: [{ country: 'ZZ', clicks: 7 }],
          devices: [{ device: 'desktop', clicks: 7 }],
          browsers: [{ browser: 'Chrome', clicks: 7 }],
          os: [{ os: 'Windows', clicks: 7 }],
        });
        const list = await after.request('/api/links?limit=100', { headers: { 'x-api-key': token } });
        expect(await list.json()).toMatchObject({ total: codes.length + 1 });
      } finally {
        await after.close();
      }
    });

    it('with SHUTDOWN_DELAY_MS, fails readiness at once and keeps serving for the delay before closing', async () => {
      server = await startServerProcess({ DATABASE_URL: database.url, SHUTDOWN_DELAY_MS: '2000' });
      const baseUrl = server.baseUrl;
      expect((await fetch(`${baseUrl}/health/ready`)).status).toBe(200);
      const created = await fetch(`${baseUrl}/api/links`, {
        method: 'POST',
        headers: { 'x-api-key': token, 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://example.com/during-drain' }),
      });
      expect(created.status).toBe(201);
      const { code } = (await created.json()) as { code: string };

      const signalledAt = Date.now();
      server.child.kill('SIGTERM');
      // Not ready any more, as soon as the signal has been handled.
      let ready = await fetch(`${baseUrl}/health/ready`);
      for (let i = 0; ready.status === 200 && i < 20; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        ready = await fetch(`${baseUrl}/health/ready`);
      }
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({
        status: 503,
        error: 'service_unavailable',
        detail: 'The instance is shutting down',
      });
      // Everything else is still served: liveness, redirects (cached or not), the API.
      expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
      expect((await fetch(`${baseUrl}/${code}`, { redirect: 'manual' })).status).toBe(302);
      expect((await fetch(`${baseUrl}/${code}`, { redirect: 'manual' })).status).toBe(302);
      const listed = await fetch(`${baseUrl}/api/links`, { headers: { authorization: `Bearer ${token}` } });
      expect(listed.status).toBe(200);

      const exit = await server.exited;
      const stoppedAfterMs = Date.now() - signalledAt;
      server = undefined;
      expect(exit.status).toBe(0);
      expect(stoppedAfterMs).toBeGreaterThanOrEqual(2000);
      expect(exit.stdout).toContain('SIGTERM: not ready; serving for 2000 ms more before closing');
    });
  });
});
