import { createAccountWithToken, type TestAccount } from './support/factories.js';
import { eventually } from './support/eventually.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { createTestDatabase } from './support/database/test-database.js';

describe('GET /{code} and HEAD /{code}', () => {
  let testApp: TestApp;
  let owner: TestAccount;

  beforeAll(async () => {
    testApp = await startTestApp({ CLICK_FLUSH_INTERVAL_MS: '50' });
    owner = await createAccountWithToken(testApp);
  });
  afterAll(() => testApp.close());

  async function createLink(url: string, customCode?: string): Promise<{ code: string; url: string }> {
    const response = await testApp.request('/api/links', {
      method: 'POST',
      headers: owner.apiKey,
      json: customCode ? { url, custom_code: customCode } : { url },
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { code: string; url: string };
  }

  async function clicksOf(code: string): Promise<number> {
    const response = await testApp.request(`/api/links/${code}`, { headers: owner.bearer });
    expect(response.status).toBe(200);
    return ((await response.json()) as { clicks: number }).clicks;
  }

  it('redirects with 302, the target in Location, no caching and an empty body', async () => {
    const link = await createLink('https://example.com/landing?x=1#top');

    const response = await testApp.request(`/${link.code}`);

    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('https://example.com/landing?x=1#top');
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(await response.text()).toBe('');
  });

  it.each(['GET', 'HEAD'])(
    'answers %s of a cached code (before Fastify) exactly as the first, uncached one',
    async (method) => {
      const link = await createLink(`https://example.com/same-answer/${method}`);
      // The same request id each time, so the answers must match header for header.
      const answer = async (path: string) => {
        const response = await testApp.request(path, { method, headers: { 'x-request-id': `same-${method}` } });
        const headers = Object.fromEntries([...response.headers].filter(([name]) => name !== 'date'));
        return { status: response.status, headers, body: await response.text() };
      };

      const cold = await answer(`/${link.code}`);
      const cached = await answer(`/${link.code}`);
      const withQuery = await answer(`/${link.code}?utm_source=test`);

      expect(cold.status).toBe(302);
      expect(cold.headers['x-request-id']).toBe(`same-${method}`);
      expect(cached).toEqual(cold);
      expect(withQuery).toEqual(cold);
    },
  );

  it('redirects anonymous links too', async () => {
    const created = await testApp.request('/api/links', { method: 'POST', json: { url: 'https://anon.example/' } });
    const { code } = (await created.json()) as { code: string };

    const response = await testApp.request(`/${code}`);

    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('https://anon.example/');
  });

  it('answers HEAD with the same status and headers and no body', async () => {
    const link = await createLink('https://example.com/head');

    const response = await testApp.request(`/${link.code}`, { method: 'HEAD' });

    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('https://example.com/head');
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(await response.text()).toBe('');
  });

  it.each([
    ['an unknown code', '/Zz9Zz9Z'],
    ['a code with characters no code has', '/abc.def'],
    ['a too short code', '/ab'],
    ['a too long code', `/${'a'.repeat(65)}`],
  ])('answers 404 problem+json for %s', async (_label, path) => {
    const response = await testApp.request(path);

    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.headers.get('location')).toBeNull();
    expect(await response.json()).toMatchObject({ status: 404, error: 'not_found' });
  });

  it('answers HEAD for an unknown code with 404', async () => {
    const response = await testApp.request('/Zz9Zz9Z', { method: 'HEAD' });
    expect(response.status).toBe(404);
  });

  it('is case-sensitive', async () => {
    const link = await createLink('https://example.com/case', 'CaseCode');

    expect((await testApp.request(`/${link.code}`)).status).toBe(302);
    expect((await testApp.request('/casecode')).status).toBe(404);
  });

  it('leaves /health, /docs, /openapi.json and /api routes to their own handlers', async () => {
    const health = await testApp.request('/health');
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    const docs = await testApp.request('/docs');
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toContain('text/html');

    const openapi = await testApp.request('/openapi.json');
    expect(openapi.status).toBe(200);
    expect(((await openapi.json()) as { openapi: string }).openapi).toMatch(/^3\./);

    // "/api" alone is a reserved name, never a link.
    expect((await testApp.request('/api')).status).toBe(404);
    expect((await testApp.request('/api/links')).status).toBe(401);
  });

  it('counts each GET redirect once, after a flush, without touching updated_at', async () => {
    const link = await createLink('https://example.com/counted');
    const before = (await (await testApp.request(`/api/links/${link.code}`, { headers: owner.apiKey })).json()) as {
      updated_at: string;
    };

    for (let i = 0; i < 5; i++) expect((await testApp.request(`/${link.code}`)).status).toBe(302);
    await Promise.all(Array.from({ length: 10 }, () => testApp.request(`/${link.code}`)));

    await eventually(async () => expect(await clicksOf(link.code)).toBe(15));
    const after = (await (await testApp.request(`/api/links/${link.code}`, { headers: owner.apiKey })).json()) as {
      updated_at: string;
    };
    expect(after.updated_at).toBe(before.updated_at);
  });

  it('does not count HEAD requests or 404s', async () => {
    const link = await createLink('https://example.com/not-counted');

    await testApp.request(`/${link.code}`, { method: 'HEAD' });
    await testApp.request(`/${link.code}`);
    await testApp.request(`/${link.code}x`);

    await eventually(async () => expect(await clicksOf(link.code)).toBe(1));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await clicksOf(link.code)).toBe(1);
  });

  it('follows a PUT at once, even when the old target was cached', async () => {
    const link = await createLink('https://example.com/old');
    expect((await testApp.request(`/${link.code}`)).headers.get('location')).toBe('https://example.com/old');

    const put = await testApp.request(`/api/links/${link.code}`, {
      method: 'PUT',
      headers: owner.apiKey,
      json: { url: 'https://example.com/new' },
    });
    expect(put.status).toBe(200);

    expect((await testApp.request(`/${link.code}`)).headers.get('location')).toBe('https://example.com/new');
  });

  it('answers 404 right after a DELETE, even when the target was cached', async () => {
    const link = await createLink('https://example.com/doomed');
    expect((await testApp.request(`/${link.code}`)).status).toBe(302);

    const deleted = await testApp.request(`/api/links/${link.code}`, { method: 'DELETE', headers: owner.bearer });
    expect(deleted.status).toBe(204);

    expect((await testApp.request(`/${link.code}`)).status).toBe(404);
  });

  it('never serves a target that a concurrent PUT replaced', async () => {
    const link = await createLink('https://example.com/v0');
    for (let version = 1; version <= 5; version++) {
      // Redirects race the update; once the update is answered, only the new target may appear.
      const racing = Array.from({ length: 10 }, () => testApp.request(`/${link.code}`));
      const put = await testApp.request(`/api/links/${link.code}`, {
        method: 'PUT',
        headers: owner.apiKey,
        json: { url: `https://example.com/v${version}` },
      });
      expect(put.status).toBe(200);
      await Promise.all(racing);
      const after = await Promise.all(Array.from({ length: 5 }, () => testApp.request(`/${link.code}`)));
      for (const response of after) expect(response.headers.get('location')).toBe(`https://example.com/v${version}`);
    }
  });
});

describe('redirects with the cache disabled (REDIRECT_CACHE_SIZE=0)', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp({ REDIRECT_CACHE_SIZE: '0' });
  });
  afterAll(() => testApp.close());

  it('still redirects and follows changes', async () => {
    const owner = await createAccountWithToken(testApp);
    const created = await testApp.request('/api/links', {
      method: 'POST',
      headers: owner.apiKey,
      json: { url: 'https://a.example/' },
    });
    const { code } = (await created.json()) as { code: string };
    expect((await testApp.request(`/${code}`)).headers.get('location')).toBe('https://a.example/');

    await testApp.request(`/api/links/${code}`, {
      method: 'PUT',
      headers: owner.apiKey,
      json: { url: 'https://b.example/' },
    });
    expect((await testApp.request(`/${code}`)).headers.get('location')).toBe('https://b.example/');
  });
});

describe('click counts at shutdown', () => {
  it('are written when the application closes, before the database disconnects', async () => {
    const database = await createTestDatabase();
    try {
      // A flush interval far longer than the test: only the shutdown flush can write the clicks.
      const first = await startTestApp({ CLICK_FLUSH_INTERVAL_MS: '60000' }, database);
      const owner = await createAccountWithToken(first);
      const created = await first.request('/api/links', {
        method: 'POST',
        headers: owner.apiKey,
        json: { url: 'https://example.com/' },
      });
      const { code } = (await created.json()) as { code: string };
      for (let i = 0; i < 7; i++) expect((await first.request(`/${code}`)).status).toBe(302);
      const beforeClose = await first.request(`/api/links/${code}`, { headers: owner.apiKey });
      expect(((await beforeClose.json()) as { clicks: number }).clicks).toBe(0);
      await first.close();

      const second = await startTestApp({}, database);
      try {
        const response = await second.request(`/api/links/${code}`, { headers: owner.bearer });
        expect(response.status).toBe(200);
        expect(((await response.json()) as { clicks: number }).clicks).toBe(7);
      } finally {
        await second.close();
      }
    } finally {
      await database.drop();
    }
  });
});
