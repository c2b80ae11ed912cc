import { createAccountWithToken, type TestAccount } from '../support/factories.js';
import { TcpProxy } from '../support/processes/tcp-proxy.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { createTestDatabase, TEST_POSTGRES_URL, type TestDatabase } from '../support/database/test-database.js';

/**
 * PostgreSQL going away and coming back, seen by a running instance: it keeps answering (503s
 * that say so, never 500s), the load balancer's readiness probe takes it out, and it recovers
 * by itself. The database is reached through a proxy the spec can cut, so the machine's shared
 * PostgreSQL keeps running. Runs once, on PostgreSQL, whatever TEST_DATABASE says.
 */
describe('PostgreSQL unavailable', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let testApp: TestApp;
  let owner: TestAccount;

  beforeAll(async () => {
    database = await createTestDatabase('postgresql');
    const admin = new URL(TEST_POSTGRES_URL);
    proxy = await TcpProxy.start({ host: admin.hostname, port: Number(admin.port || 5432) });
    const proxied = new URL(database.url);
    proxied.port = String(proxy.port);
    testApp = await startTestApp({}, { url: proxied.toString(), drop: () => Promise.resolve() });
    owner = await createAccountWithToken(testApp);
  });

  afterAll(async () => {
    await testApp?.close();
    await proxy?.cut();
    await database?.drop();
  });

  const createLink = (url: string) =>
    testApp.request('/api/links', { method: 'POST', headers: owner.apiKey, json: { url } });

  it('answers 503 instead of failing, and recovers without a restart', async () => {
    const cachedResponse = await createLink('https://example.com/cached');
    const { code: cached } = (await cachedResponse.json()) as { code: string };
    expect((await testApp.request(`/${cached}`)).status).toBe(302);
    const { code: uncached } = (await (await createLink('https://example.com/uncached')).json()) as { code: string };

    await proxy.cut();

    const ready = await testApp.request('/health/ready');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 503, error: 'service_unavailable' });
    expect((await testApp.request('/health')).status).toBe(200);

    const create = await createLink('https://example.com/during');
    expect(create.status).toBe(503);
    expect(create.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await create.json()).toEqual({
      type: 'about:blank',
      title: 'Service Unavailable',
      status: 503,
      error: 'service_unavailable',
      detail: expect.any(String),
    });
    const anonymous = await testApp.request('/api/links', { method: 'POST', json: { url: 'https://example.com/' } });
    expect(anonymous.status).toBe(503);
    const quick = await testApp.request('/api/s?url=https%3A%2F%2Fexample.com%2F');
    expect(quick.status).toBe(503);
    expect(await quick.text()).toBe('error: service_unavailable');
    expect((await testApp.request(`/api/links/${cached}`, { headers: owner.bearer })).status).toBe(503);
    // Redirects the instance has cached keep working; the others cannot be answered.
    const cachedRedirect = await testApp.request(`/${cached}`);
    expect(cachedRedirect.status).toBe(302);
    expect(cachedRedirect.headers.get('location')).toBe('https://example.com/cached');
    expect((await testApp.request(`/${uncached}`)).status).toBe(503);

    await proxy.restore();

    const deadline = Date.now() + 20_000;
    while ((await testApp.request('/health/ready')).status !== 200) {
      if (Date.now() > deadline) throw new Error('the instance did not become ready again');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await createLink('https://example.com/after')).status).toBe(201);
    expect((await testApp.request(`/${uncached}`)).status).toBe(302);
  });
});
