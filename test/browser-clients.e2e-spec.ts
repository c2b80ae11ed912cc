// Browser clients on other origins (CORS for the API) and the security headers every answer
// but a redirect carries.
import { createAccountWithToken, type TestAccount } from './support/factories.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const APP_ORIGIN = 'https://app.example';
const OTHER_ORIGIN = 'http://localhost:5173';

function corsHeadersOf(response: Response): Record<string, string> {
  return Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')));
}

function preflight(testApp: TestApp, path: string, origin: string): Promise<Response> {
  return testApp.request(path, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'x-api-key, content-type, idempotency-key',
    },
  });
}

/** A running app with an account and one of its links. */
async function appWithOneLink(
  env: Record<string, string> = {},
): Promise<{ testApp: TestApp; owner: TestAccount; code: string }> {
  const testApp = await startTestApp(env);
  const owner = await createAccountWithToken(testApp);
  const created = await testApp.request('/api/links', {
    method: 'POST',
    headers: owner.apiKey,
    json: { url: 'https://example.com/' },
  });
  return { testApp, owner, code: ((await created.json()) as { code: string }).code };
}

describe('CORS_ORIGINS with a list of origins', () => {
  let testApp: TestApp;
  let owner: TestAccount;
  let code: string;

  beforeAll(async () => {
    ({ testApp, owner, code } = await appWithOneLink({ CORS_ORIGINS: `${APP_ORIGIN},${OTHER_ORIGIN}` }));
  });
  afterAll(() => testApp.close());

  it('answers a preflight from a listed origin with 204 and what a token call needs', async () => {
    const response = await preflight(testApp, '/api/links', APP_ORIGIN);

    expect(response.status).toBe(204);
    expect(corsHeadersOf(response)).toEqual({
      'access-control-allow-origin': APP_ORIGIN,
      'access-control-allow-methods': 'GET, HEAD, POST, PUT, DELETE',
      'access-control-allow-headers': 'X-API-Key, Authorization, Content-Type, Idempotency-Key',
      'access-control-expose-headers':
        'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Location',
      'access-control-max-age': '600',
    });
    expect(response.headers.get('vary')).toContain('Origin');
  });

  it('answers preflights for a link path and for /openapi.json from the second listed origin', async () => {
    for (const path of [`/api/links/${code}`, '/openapi.json']) {
      const response = await preflight(testApp, path, OTHER_ORIGIN);
      expect({ path, status: response.status, origin: response.headers.get('access-control-allow-origin') }).toEqual({
        path,
        status: 204,
        origin: OTHER_ORIGIN,
      });
    }
  });

  it('gives a refused origin no CORS header at all', async () => {
    const response = await preflight(testApp, '/api/links', 'https://evil.example');
    expect(response.status).toBe(404);
    expect(corsHeadersOf(response)).toEqual({});

    const call = await testApp.request('/api/links', { headers: { ...owner.apiKey, origin: 'https://evil.example' } });
    expect(call.status).toBe(200);
    expect(corsHeadersOf(call)).toEqual({});
  });

  it('lets a token call from a listed origin read the answer and its headers', async () => {
    const response = await testApp.request('/api/links', {
      method: 'POST',
      headers: { ...owner.bearer, origin: APP_ORIGIN },
      json: { url: 'https://example.com/from-a-browser' },
    });

    expect(response.status).toBe(201);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(response.headers.get('access-control-expose-headers')).toContain('Location');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('never allows credentials: a cookie is not a way in', async () => {
    const response = await testApp.request('/api/links', {
      headers: { origin: APP_ORIGIN, cookie: `session=${owner.token}` },
    });

    expect(response.status).toBe(401);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('gives redirects, health and Swagger UI no CORS headers', async () => {
    for (const path of [`/${code}`, '/health', '/docs']) {
      const response = await testApp.request(path, { headers: { origin: APP_ORIGIN } });
      expect({ path, cors: corsHeadersOf(response) }).toEqual({ path, cors: {} });
    }
    const redirectPreflight = await preflight(testApp, `/${code}`, APP_ORIGIN);
    expect(corsHeadersOf(redirectPreflight)).toEqual({});
  });
});

describe('CORS_ORIGINS=*', () => {
  let testApp: TestApp;
  beforeAll(async () => (testApp = await startTestApp({ CORS_ORIGINS: '*' })));
  afterAll(() => testApp.close());

  it('lets any origin call the API, without credentials', async () => {
    const response = await preflight(testApp, '/api/links', 'https://anyone.example');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
  });
});

describe('without CORS_ORIGINS, and the security headers', () => {
  let testApp: TestApp;
  let owner: TestAccount;
  let code: string;

  beforeAll(async () => {
    ({ testApp, owner, code } = await appWithOneLink());
  });
  afterAll(() => testApp.close());

  it('changes nothing for browsers: no preflight, no CORS header', async () => {
    const response = await preflight(testApp, '/api/links', APP_ORIGIN);
    expect(response.status).toBe(404);
    expect(corsHeadersOf(response)).toEqual({});
  });

  const PAGE_POLICY =
    "default-src 'none';script-src 'self';style-src 'self';img-src 'self' data:;font-src 'self';connect-src 'self';manifest-src 'self';form-action 'self';frame-ancestors 'none';base-uri 'none';object-src 'none'";

  it.each([
    ['a JSON answer', '/health', {}],
    ['a token call', '/api/links', 'token'],
    ['a problem answer (401)', '/api/links', {}],
    ['a problem answer (404)', '/api/nothing-here', {}],
    ['the OpenAPI document', '/openapi.json', {}],
  ])('puts the security headers on %s', async (_what, path, auth) => {
    const response = await testApp.request(path, { headers: auth === 'token' ? owner.apiKey : {} });

    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toBe(PAGE_POLICY);
    expect(response.headers.get('referrer-policy')).toBe('same-origin');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    // The test app's SHORT_BASE_URL is https.
    expect(response.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
  });

  it('lets Swagger UI at /docs run its own files and nothing else', async () => {
    const response = await testApp.request('/docs');
    const policy = response.headers.get('content-security-policy') ?? '';

    expect(response.status).toBe(200);
    expect(policy).toContain("script-src 'self';");
    expect(policy).toContain("style-src 'self' 'unsafe-inline';");
    expect(policy).toContain("connect-src 'self';");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toMatch(/https?:|\*/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('keeps redirect answers as small as before', async () => {
    // The first redirect may be served by Fastify (not cached yet), the second by the fast path.
    for (let i = 0; i < 2; i++) {
      const response = await testApp.request(`/${code}`);
      expect(response.status).toBe(302);
      expect([...response.headers.keys()].sort()).toEqual([
        'cache-control',
        'connection',
        'content-length',
        'date',
        'keep-alive',
        'location',
        // Every answer carries its request id (docs/operations.md, Logs).
        'x-request-id',
      ]);
    }
  });
});

describe('Strict-Transport-Security', () => {
  it('is not sent when SHORT_BASE_URL is plain http', async () => {
    const testApp = await startTestApp({ SHORT_BASE_URL: 'http://sl.test' });
    try {
      const response = await testApp.request('/health');
      expect(response.headers.get('strict-transport-security')).toBeNull();
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    } finally {
      await testApp.close();
    }
  });
});
