import { createAccountWithToken, type TestAccount } from './support/factories.js';
import { createTestDatabase, TEST_POSTGRES_URL, withPostgres } from './support/database/test-database.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * The database going away under a running server, and coming back. PostgreSQL only (an embedded
 * SQLite file cannot be "down" while the process holds it open), so this runs once, in the unit
 * project, on a PostgreSQL database of its own.
 */
describe('readiness when the database goes down and comes back', () => {
  let testApp: TestApp;
  let account: TestAccount;
  let databaseName: string;

  const admin = async (sql: string) => {
    await withPostgres(TEST_POSTGRES_URL, (client) => client.query(sql));
  };
  const takeDown = async () => {
    // Refuse new connections (superusers included), then cut the app's open ones.
    await admin(`ALTER DATABASE "${databaseName}" ALLOW_CONNECTIONS false`);
    await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${databaseName}'`);
  };
  const bringBack = () => admin(`ALTER DATABASE "${databaseName}" ALLOW_CONNECTIONS true`);

  beforeAll(async () => {
    const database = await createTestDatabase('postgresql');
    databaseName = new URL(database.url).pathname.slice(1);
    testApp = await startTestApp({}, database);
    account = await createAccountWithToken(testApp);
  });

  afterAll(async () => {
    await bringBack();
    await testApp.close();
    await testApp.database.drop();
  });

  it('is ready while the database answers', async () => {
    const response = await testApp.request('/health/ready');

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', database: 'ok' });
  });

  describe('while the database is down', () => {
    beforeAll(takeDown);

    it('answers 503 on /health/ready, while /health (liveness) stays 200', async () => {
      const ready = await testApp.request('/health/ready');

      expect(ready.status).toBe(503);
      expect(ready.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await ready.json()).toMatchObject({ status: 503, error: 'service_unavailable' });
      expect((await testApp.request('/health')).status).toBe(200);
    });

    it('answers API calls with 503 service_unavailable, not 500', async () => {
      const list = await testApp.request('/api/links', { headers: account.apiKey });
      const create = await testApp.request('/api/links', {
        method: 'POST',
        headers: account.apiKey,
        json: { url: 'https://example.com/while-down' },
      });
      const anonymous = await testApp.request('/api/links', {
        method: 'POST',
        json: { url: 'https://example.com/anon' },
      });

      for (const response of [list, create, anonymous]) {
        expect(response.status).toBe(503);
        expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        const body = (await response.json()) as Record<string, unknown>;
        expect(body).toMatchObject({
          type: 'about:blank',
          status: 503,
          title: 'Service Unavailable',
          error: 'service_unavailable',
        });
        // No internals (driver messages, SQL, host names) leak to the client.
        expect(JSON.stringify(body)).not.toMatch(/postgres|ALLOW_CONNECTIONS|Prisma|127\.0\.0\.1/i);
      }
    });

    it('answers the plain-text endpoint with 503 error: service_unavailable', async () => {
      const response = await testApp.request(`/api/s?url=${encodeURIComponent('https://example.com/plain')}`);

      expect(response.status).toBe(503);
      expect(await response.text()).toBe('error: service_unavailable');
    });
  });

  describe('after the database is back', () => {
    beforeAll(bringBack);

    it('is ready again and serves the API, without a restart', async () => {
      // The pool reconnects on demand; allow it a moment.
      let status = 0;
      for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
        status = (await testApp.request('/health/ready')).status;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
      }

      expect(status).toBe(200);
      expect((await testApp.request('/api/links', { headers: account.apiKey })).status).toBe(200);
      const created = await testApp.request('/api/links', {
        method: 'POST',
        headers: account.apiKey,
        json: { url: 'https://example.com/after' },
      });
      expect(created.status).toBe(201);
    });
  });

  it('also answers 503 while the database is renamed away (then 200 once it is back)', async () => {
    const renamed = `${databaseName}_away`;
    // The pool may reconnect between the two statements; retry until the rename wins.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${databaseName}'; ALTER DATABASE "${databaseName}" RENAME TO "${renamed}"`,
        );
        break;
      } catch (error) {
        if (attempt >= 20) throw error;
      }
    }
    try {
      const ready = await testApp.request('/health/ready');
      const list = await testApp.request('/api/links', { headers: account.apiKey });

      expect(ready.status).toBe(503);
      expect(list.status).toBe(503);
      expect(await list.json()).toMatchObject({ error: 'service_unavailable' });
    } finally {
      await admin(`ALTER DATABASE "${renamed}" RENAME TO "${databaseName}"`);
    }
    expect((await testApp.request('/health/ready')).status).toBe(200);
    expect((await testApp.request('/api/links', { headers: account.apiKey })).status).toBe(200);
  });
});
