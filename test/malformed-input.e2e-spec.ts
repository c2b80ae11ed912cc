// A sweep of odd requests: whatever a client sends, the answer is a clear 4xx in the documented
// shape (problem+json, or plain text on /api/s), never a 500.
import { createAccountWithToken, type TestAccount } from './support/factories.js';
import { startTestApp, type TestApp } from './support/test-app.js';

interface Case {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

let testApp: TestApp;
let owner: TestAccount;
let code: string;

beforeAll(async () => {
  testApp = await startTestApp({ RATE_LIMIT_ANONYMOUS: '1000000', RATE_LIMIT_TOKEN: '1000000' });
  owner = await createAccountWithToken(testApp);
  const created = await testApp.request('/api/links', {
    method: 'POST',
    headers: owner.apiKey,
    json: { url: 'https://example.com/' },
  });
  code = ((await created.json()) as { code: string }).code;
});
afterAll(() => testApp.close());

/** Sends a request as-is (no JSON helper) and checks the answer is a well-formed client error. */
async function expectClientError(request: Case, plainText = false): Promise<number> {
  const response = await testApp.request(request.path, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  const text = await response.text();
  const where = `${request.method} ${request.path.slice(0, 80)} → ${response.status} ${text.slice(0, 200)}`;
  expect({ where, clientError: response.status >= 400 && response.status < 500 }).toEqual({ where, clientError: true });
  if (request.method === 'HEAD') return response.status;
  if (plainText) {
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(text).toMatch(/^error: [a-z_]+$/);
  } else {
    expect({ where, type: response.headers.get('content-type')?.split(';')[0] }).toEqual({
      where,
      type: 'application/problem+json',
    });
    const body = JSON.parse(text) as { status: number; error: string };
    expect(body.status).toBe(response.status);
    expect(body.error).toMatch(/^[a-z_]+$/);
  }
  return response.status;
}

const json = (body: string | Uint8Array, headers: Record<string, string> = {}) => ({
  headers: { 'content-type': 'application/json', ...headers },
  body,
});

describe('odd paths', () => {
  it.each([
    ['/%'],
    ['/%zz'],
    ['/%E0%A4%A'],
    ['//'],
    ['///'],
    ['/%00'],
    ['/a%00b'],
    ['/..%2f'],
    // fetch resolves a bare /%2e%2e to / (the front page); below a segment it still reaches the router.
    ['/%2e%2e/a%00b'],
    ['/api/links/%00'],
    ['/api/links/..%2f'],
    ['/api/links/%'],
    ['/api/links/%zz'],
    ['/api/links/a%2Fb'],
    ['/api/links/ + 5000 characters', '/api/links/' + 'a'.repeat(5000)],
    ['/ + 5000 characters', '/' + 'a'.repeat(5000)],
    ['/a/a/a/… (2000 segments)', '/' + 'a/'.repeat(2000)],
    ['/api/links//'],
    ['/api//links'],
    ['/api/s/extra'],
    ['/api/nothing-here'],
    ['/%F0%9F%99%82'],
    ['/%C3%A9t%C3%A9'],
    ['/docs/..%2f..%2fetc%2fpasswd'],
    ['/favicon.ico'],
  ])('GET %s', async (label, path = label) => {
    await expectClientError({ method: 'GET', path, headers: owner.apiKey });
  });

  it('an overlong URL as a whole', async () => {
    // Node's HTTP parser limits the request line and headers to 16 KiB: it answers 431 itself.
    const response = await fetch(`${testApp.baseUrl}/${'a'.repeat(20_000)}`, { redirect: 'manual' }).catch(() => null);
    if (response) expect(response.status).toBeLessThan(500);
  });
});

describe('odd query strings', () => {
  it.each([
    '/api/links?limit[]=1',
    '/api/links?limit=1&limit=2',
    '/api/links?limit=%',
    '/api/links?limit=%00',
    '/api/links?offset=1e999',
    '/api/links?limit=Infinity',
    '/api/links?limit=NaN',
    '/api/links?limit=-0',
    '/api/links?limit=%2B1',
    '/api/links?limit=99999999999999999999999999999999999999999999999999',
    '/api/links?constructor[prototype][x]=1',
    '/api/links?=&=&',
    '/api/links?tag[]=news',
    '/api/links?tag=%',
    '/api/links?tag=%00',
    '/api/links?tag=%F0%9F%99',
    `/api/links?tag=${'a'.repeat(200)}`,
  ])('GET %s', async (path) => {
    await expectClientError({ method: 'GET', path, headers: owner.apiKey });
  });

  it.each([
    '/api/s?url=%',
    '/api/s?url[]=x',
    '/api/s?url=1&url=2',
    '/api/s?url=%00',
    '/api/s',
    '/api/s?url=%F0%9F%99',
    '/api/s?url=https%3A%2F%2Fexample.com%2F%ED%A0%80',
  ])('GET %s (plain text)', async (path) => {
    await expectClientError({ method: 'GET', path }, true);
  });
});

describe('odd bodies', () => {
  const bodies: [string, string | Uint8Array][] = [
    ['an array', '[]'],
    ['an array of objects', '[{"url":"https://example.com/"}]'],
    ['a string', '"https://example.com/"'],
    ['a number', '42'],
    ['a huge number', '1e999999'],
    ['true', 'true'],
    ['null', 'null'],
    ['an empty object', '{}'],
    ['a nested url', '{"url":{"href":"https://example.com/"}}'],
    ['a url array', '{"url":["https://example.com/"]}'],
    ['a huge numeric url', '{"url":123456789012345678901234567890}'],
    ['a nested custom_code', '{"url":"https://example.com/","custom_code":{"$gt":""}}'],
    ['an unknown nested field', '{"url":"https://example.com/","meta":{"a":{"b":{"c":1}}}}'],
    ['deeply nested JSON', '{"url":"https://example.com/","x":' + '['.repeat(5000) + ']'.repeat(5000) + '}'],
    [
      'deeply nested objects',
      '{"url":"https://example.com/","x":' + '{"a":'.repeat(3000) + '1' + '}'.repeat(3000) + '}',
    ],
    ['very deeply nested JSON', '['.repeat(100_000) + ']'.repeat(100_000)],
    ['a constructor key', '{"url":"https://example.com/","constructor":{"prototype":{"x":1}}}'],
    ['5000 fields', JSON.stringify(Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`f${i}`, i])))],
    ['truncated JSON', '{"url":'],
    ['trailing garbage', '{"url":"https://example.com/"} x'],
    ['a lone surrogate escape', '{"url":"https://example.com/\\ud800"}'],
    [
      'invalid UTF-8 bytes',
      Buffer.concat([Buffer.from('{"url":"https://example.com/'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
    ],
    ['whitespace only', '   '],
  ];

  it.each(bodies)('POST /api/links with %s', async (_label, body) => {
    await expectClientError({ method: 'POST', path: '/api/links', ...json(body, owner.apiKey) });
  });

  it.each(bodies)('POST /api/links anonymously with %s', async (_label, body) => {
    await expectClientError({ method: 'POST', path: '/api/links', ...json(body) });
  });

  it.each(bodies)('PUT /api/links/{code} with %s', async (_label, body) => {
    await expectClientError({ method: 'PUT', path: `/api/links/${code}`, ...json(body, owner.apiKey) });
  });

  it('the link survived every PUT unchanged', async () => {
    const response = await testApp.request(`/api/links/${code}`, { headers: owner.apiKey });
    expect(((await response.json()) as { url: string }).url).toBe('https://example.com/');
  });

  it.each([
    ['no content-type', {}],
    ['an unknown content-type', { 'content-type': 'application/x-unknown' }],
    ['a broken content-type', { 'content-type': ';;;' }],
  ])('POST /api/links with %s', async (_label, headers) => {
    await expectClientError({
      method: 'POST',
      path: '/api/links',
      headers: { ...owner.apiKey, ...headers },
      body: '{"url":"https://example.com/"}',
    });
  });

  it.each([
    ['a BOM', { 'content-type': 'application/json' }, '\ufeff{"url":"https://example.com/bom"}'],
    [
      'an unknown charset',
      { 'content-type': 'application/json; charset=latin-99' },
      '{"url":"https://example.com/cs"}',
    ],
    [
      'a __proto__ query parameter',
      { 'content-type': 'application/json' },
      '{"url":"https://example.com/q"}',
      '?__proto__=1',
    ],
  ])('POST /api/links with %s: accepted or refused, never a 500', async (_label, headers, body, query = '') => {
    const response = await testApp.request(`/api/links${query}`, {
      method: 'POST',
      headers: { ...owner.apiKey, ...headers },
      body,
    });
    expect(response.status).toBeLessThan(500);
    if (response.status >= 400) expect(response.headers.get('content-type')).toContain('application/problem+json');
  });

  it('a Content-Length that lies', async () => {
    // fetch refuses to send a wrong Content-Length, so this speaks HTTP/1.1 directly.
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${testApp.baseUrl}/api/links`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': '5000' },
      });
      req.setTimeout(2000, () => req.destroy(new Error('timeout')));
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end('{"url":"https://example.com/"}');
    }).catch(() => 400); // the server may just wait for the rest and time the client out
    expect(status).toBeLessThan(500);
  });
});

describe('odd methods', () => {
  it.each([
    ['PATCH', '/api/links/abcdefg'],
    ['POST', '/api/links/abcdefg'],
    ['PUT', '/api/links'],
    ['DELETE', '/api/links'],
    ['POST', '/abcdefg'],
    ['PUT', '/abcdefg'],
    ['DELETE', '/abcdefg'],
    ['PATCH', '/abcdefg'],
    ['POST', '/health'],
    ['DELETE', '/api/s'],
    ['POST', '/api/s'],
  ])('%s %s', async (method, path) => {
    await expectClientError({ method, path, headers: owner.apiKey });
  });

  it.each([
    ['OPTIONS', '/api/links'],
    ['HEAD', '/api/links'],
    ['HEAD', '/nope123'],
  ])('%s %s', async (method, path) => {
    const response = await testApp.request(path, { method });
    expect(response.status).toBeLessThan(500);
  });
});

describe('odd headers', () => {
  it.each([
    ['an empty X-API-Key', { 'x-api-key': '' }],
    ['a Basic authorization', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['a bare Bearer', { authorization: 'Bearer' }],
    ['two different tokens', { 'x-api-key': 'sl_' + 'a'.repeat(40), authorization: 'Bearer sl_' + 'b'.repeat(40) }],
    ['a very long token', { 'x-api-key': 'sl_' + 'a'.repeat(8000) }],
    ['non-ASCII in the token', { 'x-api-key': 'sl_\u00e9\u00e9' }],
  ])('GET /api/links with %s answers 401', async (_label, headers) => {
    const status = await expectClientError({ method: 'GET', path: '/api/links', headers });
    expect(status).toBe(401);
  });
});
