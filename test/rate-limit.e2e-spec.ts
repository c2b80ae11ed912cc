import { createAccountWithToken, newClient, type TestAccount } from './support/factories.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const WINDOW_SECONDS = 60;
const ANONYMOUS_LIMIT = 3;
const TOKEN_LIMIT = 4;

function expectLimitHeaders(response: Response, limit: number, remaining: number): void {
  expect(response.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(response.headers.get('x-ratelimit-remaining')).toBe(String(remaining));
  const reset = Number(response.headers.get('x-ratelimit-reset'));
  expect(Number.isInteger(reset)).toBe(true);
  expect(reset).toBeGreaterThanOrEqual(1);
  expect(reset).toBeLessThanOrEqual(WINDOW_SECONDS);
}

function expectRetryAfter(response: Response): void {
  const retryAfter = response.headers.get('retry-after') ?? '';
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(WINDOW_SECONDS);
  // Both say when the window resets.
  expect(response.headers.get('x-ratelimit-reset')).toBe(retryAfter);
}

describe('rate limits', () => {
  let testApp: TestApp;
  let owner: TestAccount;

  beforeAll(async () => {
    testApp = await startTestApp({
      RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
      RATE_LIMIT_ANONYMOUS: String(ANONYMOUS_LIMIT),
      RATE_LIMIT_TOKEN: String(TOKEN_LIMIT),
      TRUST_PROXY: 'true',
    });
    owner = await createAccountWithToken(testApp);
  });
  afterAll(() => testApp.close());

  const quickShorten = (client: Record<string, string>, url = 'https://example.com/') =>
    testApp.request(`/api/s?url=${encodeURIComponent(url)}`, { headers: client });
  const createAnonymously = (client: Record<string, string>) =>
    testApp.request('/api/links', { method: 'POST', headers: client, json: { url: 'https://example.com/' } });

  describe('anonymous creating calls', () => {
    it('share one counter per client IP between GET /api/s and POST /api/links', async () => {
      const client = newClient();

      const first = await quickShorten(client);
      const second = await createAnonymously(client);
      const third = await quickShorten(client);
      const fourth = await createAnonymously(client);

      expect([first.status, second.status, third.status, fourth.status]).toEqual([200, 201, 200, 429]);
      expectLimitHeaders(first, ANONYMOUS_LIMIT, 2);
      expectLimitHeaders(second, ANONYMOUS_LIMIT, 1);
      expectLimitHeaders(third, ANONYMOUS_LIMIT, 0);
    });

    it('answers 429 on POST /api/links as problem+json with Retry-After and X-RateLimit-*', async () => {
      const client = newClient();
      for (let call = 0; call < ANONYMOUS_LIMIT; call++) expect((await createAnonymously(client)).status).toBe(201);

      const response = await createAnonymously(client);

      expect(response.status).toBe(429);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await response.json()).toEqual({
        type: 'about:blank',
        title: 'Too Many Requests',
        status: 429,
        error: 'rate_limited',
        detail: expect.stringContaining(`${ANONYMOUS_LIMIT} requests per ${WINDOW_SECONDS} seconds`),
      });
      expectRetryAfter(response);
      expectLimitHeaders(response, ANONYMOUS_LIMIT, 0);
    });

    it('answers 429 on GET /api/s in plain text with the same headers', async () => {
      const client = newClient();
      for (let call = 0; call < ANONYMOUS_LIMIT; call++) expect((await quickShorten(client)).status).toBe(200);

      const response = await quickShorten(client);

      expect(response.status).toBe(429);
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await response.text()).toBe('error: rate_limited');
      expectRetryAfter(response);
      expectLimitHeaders(response, ANONYMOUS_LIMIT, 0);
    });

    it('creates nothing when refused', async () => {
      const client = newClient();
      for (let call = 0; call < ANONYMOUS_LIMIT; call++) await quickShorten(client);

      const refused = await quickShorten(client, 'https://refused.example/');

      expect(refused.status).toBe(429);
      expect(await refused.text()).not.toContain('https://');
    });

    it('counts each client separately', async () => {
      const crowded = newClient();
      for (let call = 0; call <= ANONYMOUS_LIMIT; call++) await quickShorten(crowded);

      const other = await quickShorten(newClient());

      expect(other.status).toBe(200);
    });

    it('counts bad requests too (a flood of invalid URLs is still a flood)', async () => {
      const client = newClient();
      for (let call = 0; call < ANONYMOUS_LIMIT; call++) expect((await quickShorten(client, 'nope')).status).toBe(400);

      expect((await quickShorten(client)).status).toBe(429);
    });

    it('ignores a token on GET /api/s: it creates anonymous links and counts per IP', async () => {
      const client = newClient();
      for (let call = 0; call < ANONYMOUS_LIMIT; call++) {
        expect((await quickShorten({ ...client, ...owner.apiKey })).status).toBe(200);
      }

      expect((await quickShorten({ ...client, ...owner.apiKey })).status).toBe(429);
    });
  });

  describe('token calls on /api/*', () => {
    it('count per token across endpoints and answer 429 as problem+json', async () => {
      const account = await createAccountWithToken(testApp);
      const client = newClient();

      const list = await testApp.request('/api/links', { headers: { ...client, ...account.apiKey } });
      const created = await testApp.request('/api/links', {
        method: 'POST',
        headers: { ...client, ...account.bearer },
        json: { url: 'https://example.com/' },
      });
      const { code } = (await created.json()) as { code: string };
      const read = await testApp.request(`/api/links/${code}`, { headers: account.apiKey });
      const missing = await testApp.request('/api/links/nothing-here', { headers: account.apiKey });
      const refused = await testApp.request('/api/links', { headers: account.apiKey });

      expect([list.status, created.status, read.status, missing.status]).toEqual([200, 201, 200, 404]);
      expectLimitHeaders(list, TOKEN_LIMIT, 3);
      expectLimitHeaders(missing, TOKEN_LIMIT, 0);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await refused.json()).toMatchObject({ status: 429, error: 'rate_limited' });
      expectRetryAfter(refused);
      expectLimitHeaders(refused, TOKEN_LIMIT, 0);
    });

    it('do not spend the client IP’s anonymous budget, and another token keeps its own', async () => {
      const busy = await createAccountWithToken(testApp);
      const other = await createAccountWithToken(testApp);
      const client = newClient();
      for (let call = 0; call <= TOKEN_LIMIT; call++) {
        await testApp.request('/api/links', {
          method: 'POST',
          headers: { ...client, ...busy.apiKey },
          json: { url: 'https://example.com/' },
        });
      }

      const otherToken = await testApp.request('/api/links', { headers: { ...client, ...other.apiKey } });
      const anonymous = await createAnonymously(client);

      expect(otherToken.status).toBe(200);
      expectLimitHeaders(otherToken, TOKEN_LIMIT, TOKEN_LIMIT - 1);
      expect(anonymous.status).toBe(201);
      expectLimitHeaders(anonymous, ANONYMOUS_LIMIT, ANONYMOUS_LIMIT - 1);
    });

    it('never charge an invalid token to a real one (it has a counter of its own)', async () => {
      const account = await createAccountWithToken(testApp);
      const forged = `sl_${'x'.repeat(40)}`;
      for (let call = 0; call < TOKEN_LIMIT; call++) {
        expect((await testApp.request('/api/links', { headers: { 'x-api-key': forged } })).status).toBe(401);
      }
      expect((await testApp.request('/api/links', { headers: { 'x-api-key': forged } })).status).toBe(429);

      const real = await testApp.request('/api/links', { headers: account.apiKey });

      expect(real.status).toBe(200);
      expectLimitHeaders(real, TOKEN_LIMIT, TOKEN_LIMIT - 1);
    });
  });

  describe('what is never limited', () => {
    it('redirects, HEAD included, however many', async () => {
      const created = await testApp.request('/api/links', {
        method: 'POST',
        headers: owner.apiKey,
        json: { url: 'https://example.com/target' },
      });
      const { code } = (await created.json()) as { code: string };
      const client = newClient();

      const responses = [];
      for (let call = 0; call < ANONYMOUS_LIMIT + TOKEN_LIMIT + 3; call++) {
        responses.push(await testApp.request(`/${code}`, { method: call % 2 ? 'HEAD' : 'GET', headers: client }));
      }

      expect(responses.map((response) => response.status)).toEqual(responses.map(() => 302));
      expect(responses.every((response) => response.headers.get('x-ratelimit-limit') === null)).toBe(true);
    });

    it('unknown codes, health checks and the docs', async () => {
      const client = newClient();
      for (let call = 0; call <= ANONYMOUS_LIMIT + TOKEN_LIMIT; call++) {
        expect((await testApp.request('/no-such-code', { headers: client })).status).toBe(404);
        expect((await testApp.request('/health', { headers: client })).status).toBe(200);
        expect((await testApp.request('/openapi.json', { headers: client })).status).toBe(200);
      }
    });
  });
});

describe('TRUST_PROXY', () => {
  let testApp: TestApp | undefined;
  afterEach(async () => {
    await testApp?.close();
    testApp = undefined;
  });

  const quickShorten = (app: TestApp, forwardedFor: string) =>
    app.request('/api/s?url=https%3A%2F%2Fexample.com%2F', { headers: { 'x-forwarded-for': forwardedFor } });

  it('false (default): X-Forwarded-For is ignored, the connection address counts', async () => {
    testApp = await startTestApp({ RATE_LIMIT_ANONYMOUS: '2' });

    const statuses = [];
    for (const forwardedFor of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
      statuses.push((await quickShorten(testApp, forwardedFor)).status);
    }

    expect(statuses).toEqual([200, 200, 429]);
  });

  it('true: the address the proxy saw counts; what the client wrote before it does not', async () => {
    testApp = await startTestApp({ RATE_LIMIT_ANONYMOUS: '2', TRUST_PROXY: 'true' });

    // A client cannot dodge its limit by sending its own X-Forwarded-For: the proxy appends
    // the real address, and only that last entry is believed.
    const spoofing = [];
    for (const forged of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) {
      spoofing.push((await quickShorten(testApp, `${forged}, 203.0.113.9`)).status);
    }
    const otherClient = (await quickShorten(testApp, '203.0.113.10')).status;

    expect(spoofing).toEqual([200, 200, 429]);
    expect(otherClient).toBe(200);
  });
});
