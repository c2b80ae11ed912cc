import { PrismaService } from '../src/database/prisma.service.js';
import { createAccountWithToken, type TestAccount } from './support/factories.js';
import { startTestApp, TEST_SHORT_BASE_URL, type TestApp } from './support/test-app.js';
import type { Link, LinkList, Problem } from '../sdk/client.js';
import { expectProblem } from './support/problems.js';

const ISO_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
// Rate limits are tested on their own; here they would only get in the way of the bulk tests.
const NO_RATE_LIMITS = { RATE_LIMIT_ANONYMOUS: '1000000', RATE_LIMIT_TOKEN: '1000000' };

/** Both accepted ways of sending a token: every token endpoint is tested with each. */
const HEADER_FORMS: [string, (account: TestAccount) => Record<string, string>][] = [
  ['X-API-Key', (account) => account.apiKey],
  ['Authorization: Bearer', (account) => account.bearer],
];

let testApp: TestApp;

beforeAll(async () => {
  testApp = await startTestApp(NO_RATE_LIMITS);
});
afterAll(() => testApp.close());

function post(json: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return testApp.request('/api/links', { method: 'POST', headers, json });
}

async function createLink(headers: Record<string, string>, json: Record<string, unknown>): Promise<Link> {
  const response = await post(json, headers);
  expect(response.status).toBe(201);
  return (await response.json()) as Link;
}

function countLinks(): Promise<number> {
  return testApp.app.get(PrismaService).link.count();
}

describe.each(HEADER_FORMS)('token endpoints with %s', (_form, auth) => {
  let owner: TestAccount;
  let stranger: TestAccount;
  let headers: Record<string, string>;

  beforeAll(async () => {
    owner = await createAccountWithToken(testApp);
    stranger = await createAccountWithToken(testApp);
    headers = auth(owner);
  });

  describe('POST /api/links', () => {
    it('creates a link with a generated code: 201, Location and the link resource', async () => {
      const response = await post({ url: 'https://example.com' }, headers);

      expect(response.status).toBe(201);
      expect(response.headers.get('content-type')).toContain('application/json');
      const link = (await response.json()) as Link;
      expect(link).toEqual({
        code: expect.stringMatching(/^[0-9A-Za-z]{7}$/),
        short_url: `${TEST_SHORT_BASE_URL}/${link.code}`,
        url: 'https://example.com/',
        created_at: expect.stringMatching(ISO_DATE),
        updated_at: link.created_at,
        expires_at: null,
        clicks: 0,
        tags: [],
        password_protected: false,
        ios_url: null,
        android_url: null,
        disabled_at: null,
      });
      expect(response.headers.get('location')).toBe(`/api/links/${link.code}`);
    });

    it('binds the link to the account: it can be read back', async () => {
      const link = await createLink(headers, { url: 'https://example.com/mine' });

      const response = await testApp.request(`/api/links/${link.code}`, { headers });

      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(link);
    });

    it('accepts a valid custom code, case-sensitively', async () => {
      const code = `Promo_${Date.now().toString(36)}-${_form.length}`;
      const link = await createLink(headers, { url: 'https://example.com/promo', custom_code: code });

      expect(link.code).toBe(code);
      expect(link.short_url).toBe(`${TEST_SHORT_BASE_URL}/${code}`);
      const lower = await post({ url: 'https://example.com/promo', custom_code: code.toLowerCase() }, headers);
      expect(lower.status).toBe(201);
    });

    it('treats custom_code: null as absent', async () => {
      const link = await createLink(headers, { url: 'https://example.com/', custom_code: null });

      expect(link.code).toMatch(/^[0-9A-Za-z]{7}$/);
    });

    it('answers 409 code_taken for a code in use (by anyone)', async () => {
      const code = `taken-${_form.length}`;
      await createLink(headers, { url: 'https://example.com/first', custom_code: code });

      await expectProblem(
        await post({ url: 'https://example.com/again', custom_code: code }, headers),
        409,
        'code_taken',
      );
      await expectProblem(
        await post({ url: 'https://example.com/other', custom_code: code }, auth(stranger)),
        409,
        'code_taken',
      );
    });

    it('answers 403 for a token without links:write, creating nothing', async () => {
      const reader = await createAccountWithToken(testApp, ['links:read']);
      const before = await countLinks();

      await expectProblem(await post({ url: 'https://example.com/' }, auth(reader)), 403, 'forbidden');

      expect(await countLinks()).toBe(before);
    });

    it.each([
      ['an unknown token', 'sl_' + 'x'.repeat(40)],
      ['a token of the wrong shape', 'not-a-token'],
    ])('answers 401 for %s instead of creating an anonymous link', async (_label, token) => {
      const before = await countLinks();
      const sent: Record<string, string> =
        _form === 'X-API-Key' ? { 'x-api-key': token } : { authorization: `Bearer ${token}` };

      const response = await post({ url: 'https://example.com/' }, sent);

      await expectProblem(response, 401, 'unauthorized');
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(await countLinks()).toBe(before);
    });
  });

  describe('GET /api/links', () => {
    let account: TestAccount;
    let created: Link[];

    beforeAll(async () => {
      account = await createAccountWithToken(testApp);
      created = [];
      for (let i = 0; i < 25; i++) created.push(await createLink(auth(account), { url: `https://example.com/${i}` }));
      // Someone else's and anonymous links must never show up.
      await createLink(auth(stranger), { url: 'https://example.com/stranger' });
      await createLink({}, { url: 'https://example.com/anonymous' });
    });

    const expectedOrder = () =>
      [...created]
        .sort((a, b) => b.created_at.localeCompare(a.created_at) || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0))
        .map((link) => link.code);

    it("lists the first 20 of the caller's links, newest first, with the total", async () => {
      const response = await testApp.request('/api/links', { headers: auth(account) });

      expect(response.status).toBe(200);
      const page = (await response.json()) as LinkList;
      expect(page.total).toBe(25);
      expect(page.limit).toBe(20);
      expect(page.offset).toBe(0);
      expect(page.data.map((link) => link.code)).toEqual(expectedOrder().slice(0, 20));
      expect(page.data[0]).toEqual(created.find((link) => link.code === page.data[0].code));
    });

    it('pages with limit and offset, covering every link once', async () => {
      const codes: string[] = [];
      for (const offset of [0, 10, 20]) {
        const response = await testApp.request(`/api/links?limit=10&offset=${offset}`, { headers: auth(account) });
        const page = (await response.json()) as LinkList;
        expect(page).toMatchObject({ total: 25, limit: 10, offset });
        codes.push(...page.data.map((link) => link.code));
      }

      expect(codes).toEqual(expectedOrder());
    });

    it.each([
      ['limit=1', 1, 1],
      ['limit=100', 25, 100],
      ['offset=24', 1, 20],
      ['offset=25', 0, 20],
      ['offset=1000000', 0, 20],
    ])('accepts %s', async (query, count, limit) => {
      const response = await testApp.request(`/api/links?${query}`, { headers: auth(account) });

      expect(response.status).toBe(200);
      const page = (await response.json()) as LinkList;
      expect(page.data).toHaveLength(count);
      expect(page.limit).toBe(limit);
      expect(page.total).toBe(25);
    });

    it.each([
      'limit=0',
      'limit=101',
      'limit=abc',
      'limit=1.5',
      'limit=-1',
      'limit=',
      'limit=1e2',
      'limit=%201',
      'limit=0x10',
      'offset=-1',
      'offset=abc',
      'offset=1.5',
      'offset=99999999999999999999',
      'limit=1&limit=2',
      'limit[]=1',
      'page=2',
    ])('answers 400 validation_failed for ?%s', async (query) => {
      await expectProblem(
        await testApp.request(`/api/links?${query}`, { headers: auth(account) }),
        400,
        'validation_failed',
      );
    });

    it('shows an account without links an empty page', async () => {
      const fresh = await createAccountWithToken(testApp);

      const response = await testApp.request('/api/links', { headers: auth(fresh) });

      expect(await response.json()).toEqual({ data: [], total: 0, limit: 20, offset: 0 });
    });

    it('answers 403 for a token without links:read', async () => {
      const writer = await createAccountWithToken(testApp, ['links:write']);

      await expectProblem(await testApp.request('/api/links', { headers: auth(writer) }), 403, 'forbidden');
    });
  });

  describe('GET /api/links/{code}', () => {
    it("answers 404 for an unknown code, another account's code and an anonymous link", async () => {
      const theirs = await createLink(auth(stranger), { url: 'https://example.com/theirs' });
      const anonymous = await createLink({}, { url: 'https://example.com/anon' });

      for (const code of ['Unknown1', theirs.code, anonymous.code, 'a.b', 'x'.repeat(65)]) {
        await expectProblem(await testApp.request(`/api/links/${code}`, { headers }), 404, 'not_found');
      }
    });

    it('answers 403 for a token without links:read', async () => {
      const writer = await createAccountWithToken(testApp, ['links:write']);
      const link = await createLink(auth(writer), { url: 'https://example.com/' });

      await expectProblem(
        await testApp.request(`/api/links/${link.code}`, { headers: auth(writer) }),
        403,
        'forbidden',
      );
    });
  });

  describe('PUT /api/links/{code}', () => {
    it('changes the target and answers the updated link', async () => {
      const link = await createLink(headers, { url: 'https://example.com/before' });
      await new Promise((resolve) => setTimeout(resolve, 5));

      const response = await testApp.request(`/api/links/${link.code}`, {
        method: 'PUT',
        headers,
        json: { url: ' https://Example.com/after ' },
      });

      expect(response.status).toBe(200);
      const updated = (await response.json()) as Link;
      expect(updated).toMatchObject({ code: link.code, url: 'https://example.com/after', created_at: link.created_at });
      expect(updated.updated_at > link.updated_at).toBe(true);
      const redirect = await testApp.request(`/${link.code}`);
      expect(redirect.headers.get('location')).toBe('https://example.com/after');
    });

    it.each([
      ['no url', {}],
      ['a null url', { url: null }],
      ['a numeric url', { url: 42 }],
      ['an invalid url', { url: 'javascript:alert(1)' }],
    ])('answers 400 invalid_url for %s', async (_label, json) => {
      const link = await createLink(headers, { url: 'https://example.com/keep' });

      await expectProblem(
        await testApp.request(`/api/links/${link.code}`, { method: 'PUT', headers, json }),
        400,
        'invalid_url',
      );

      const after = (await (await testApp.request(`/api/links/${link.code}`, { headers })).json()) as Link;
      expect(after.url).toBe('https://example.com/keep');
    });

    it('refuses other fields (custom_code cannot be changed): 400 validation_failed', async () => {
      const link = await createLink(headers, { url: 'https://example.com/' });

      const response = await testApp.request(`/api/links/${link.code}`, {
        method: 'PUT',
        headers,
        json: { url: 'https://example.com/x', custom_code: 'renamed' },
      });

      await expectProblem(response, 400, 'validation_failed');
    });

    it("answers 404 for an unknown code, another account's code and an anonymous link, changing nothing", async () => {
      const theirs = await createLink(auth(stranger), { url: 'https://example.com/theirs' });
      const anonymous = await createLink({}, { url: 'https://example.com/anon' });

      for (const code of ['Unknown1', theirs.code, anonymous.code, '%2e%2e']) {
        const response = await testApp.request(`/api/links/${code}`, {
          method: 'PUT',
          headers,
          json: { url: 'https://evil.example/' },
        });
        await expectProblem(response, 404, 'not_found');
      }
      expect((await testApp.request(`/${theirs.code}`)).headers.get('location')).toBe('https://example.com/theirs');
      expect((await testApp.request(`/${anonymous.code}`)).headers.get('location')).toBe('https://example.com/anon');
    });

    it('answers 403 for a token without links:write', async () => {
      const link = await createLink(headers, { url: 'https://example.com/' });
      const reader = await createAccountWithToken(testApp, ['links:read']);

      const response = await testApp.request(`/api/links/${link.code}`, {
        method: 'PUT',
        headers: auth(reader),
        json: { url: 'https://x.example/' },
      });

      await expectProblem(response, 403, 'forbidden');
    });
  });

  describe('DELETE /api/links/{code}', () => {
    it('answers 204 without a body; afterwards redirect, get, list and a second delete answer 404', async () => {
      const link = await createLink(headers, { url: 'https://example.com/gone' });
      expect((await testApp.request(`/${link.code}`)).status).toBe(302);

      const response = await testApp.request(`/api/links/${link.code}`, { method: 'DELETE', headers });

      expect(response.status).toBe(204);
      expect(await response.text()).toBe('');
      expect((await testApp.request(`/${link.code}`)).status).toBe(404);
      await expectProblem(await testApp.request(`/api/links/${link.code}`, { headers }), 404, 'not_found');
      const list = (await (await testApp.request('/api/links?limit=100', { headers })).json()) as LinkList;
      expect(list.data.map((item) => item.code)).not.toContain(link.code);
      await expectProblem(
        await testApp.request(`/api/links/${link.code}`, { method: 'DELETE', headers }),
        404,
        'not_found',
      );
    });

    it('frees the code: it can be created again, with a new target', async () => {
      const code = `reuse-${_form.length}`;
      await createLink(headers, { url: 'https://example.com/one', custom_code: code });
      expect((await testApp.request(`/api/links/${code}`, { method: 'DELETE', headers })).status).toBe(204);

      const again = await createLink(auth(stranger), { url: 'https://example.com/two', custom_code: code });

      expect(again.clicks).toBe(0);
      expect((await testApp.request(`/${code}`)).headers.get('location')).toBe('https://example.com/two');
    });

    it("answers 404 for another account's code and an anonymous link, deleting nothing", async () => {
      const theirs = await createLink(auth(stranger), { url: 'https://example.com/theirs' });
      const anonymous = await createLink({}, { url: 'https://example.com/anon' });

      for (const code of [theirs.code, anonymous.code, 'Unknown1']) {
        await expectProblem(
          await testApp.request(`/api/links/${code}`, { method: 'DELETE', headers }),
          404,
          'not_found',
        );
      }
      expect((await testApp.request(`/${theirs.code}`)).status).toBe(302);
      expect((await testApp.request(`/${anonymous.code}`)).status).toBe(302);
    });

    it('answers 403 for a token without links:write', async () => {
      const link = await createLink(headers, { url: 'https://example.com/' });
      const reader = await createAccountWithToken(testApp, ['links:read']);

      await expectProblem(
        await testApp.request(`/api/links/${link.code}`, { method: 'DELETE', headers: auth(reader) }),
        403,
        'forbidden',
      );
      expect((await testApp.request(`/${link.code}`)).status).toBe(302);
    });
  });
});

describe('without a token', () => {
  it('POST /api/links creates an anonymous link that no account sees', async () => {
    const owner = await createAccountWithToken(testApp);
    const before = (await (await testApp.request('/api/links', { headers: owner.apiKey })).json()) as LinkList;

    const link = await createLink({}, { url: 'https://example.com/anonymous' });

    expect(link).toMatchObject({
      url: 'https://example.com/anonymous',
      clicks: 0,
      short_url: `${TEST_SHORT_BASE_URL}/${link.code}`,
    });
    expect((await testApp.request(`/${link.code}`)).headers.get('location')).toBe('https://example.com/anonymous');
    const after = (await (await testApp.request('/api/links', { headers: owner.apiKey })).json()) as LinkList;
    expect(after.total).toBe(before.total);
  });

  it('POST /api/links with a custom_code answers 401 and creates nothing', async () => {
    const before = await countLinks();

    const response = await post({ url: 'https://example.com/', custom_code: 'squatted' });

    await expectProblem(response, 401, 'unauthorized');
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(await countLinks()).toBe(before);
  });

  it.each([
    ['GET', '/api/links'],
    ['GET', '/api/links/abcdefg'],
    ['PUT', '/api/links/abcdefg'],
    ['DELETE', '/api/links/abcdefg'],
  ])('%s %s answers 401', async (method, path) => {
    const response = await testApp.request(path, {
      method,
      ...(method === 'PUT' ? { json: { url: 'https://x.example/' } } : {}),
    });

    await expectProblem(response, 401, 'unauthorized');
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });
});

describe('custom codes', () => {
  let owner: TestAccount;
  beforeAll(async () => {
    owner = await createAccountWithToken(testApp);
  });

  it.each(['abc', 'x'.repeat(64), 'a_b-C9', '---'])('accepts %j', async (code) => {
    const link = await createLink(owner.bearer, { url: 'https://example.com/', custom_code: code });
    expect(link.code).toBe(code);
  });

  it.each([
    ['empty', ''],
    ['too short', 'ab'],
    ['too long', 'y'.repeat(65)],
    ['a dot', 'a.bc'],
    ['a slash', 'ab/c'],
    ['a space', 'ab c'],
    ['non-ASCII', 'café'],
    ['a number', 12345],
    ['an object', { code: 'abc' }],
    ['reserved "api"', 'api'],
    ['reserved "API"', 'API'],
    ['reserved "Docs"', 'Docs'],
    ['reserved "HEALTH"', 'HEALTH'],
    ['reserved "dashboard"', 'dashboard'],
    ['reserved "Admin"', 'Admin'],
    ['reserved "account"', 'account'],
    ['reserved "openapi.json"', 'openapi.json'],
  ])('refuses %s with 400 invalid_code, creating nothing', async (_label, code) => {
    const before = await countLinks();

    await expectProblem(
      await post({ url: 'https://example.com/', custom_code: code }, owner.apiKey),
      400,
      'invalid_code',
    );

    expect(await countLinks()).toBe(before);
  });
});

describe('target URL rules on POST /api/links', () => {
  let owner: TestAccount;
  beforeAll(async () => {
    owner = await createAccountWithToken(testApp);
  });

  it('stores and returns the normalised URL, trimmed', async () => {
    const link = await createLink(owner.apiKey, { url: '  HTTPS://Example.COM:443/a/../b?q=1  ' });
    expect(link.url).toBe('https://example.com/b?q=1');
  });

  it('accepts a URL of exactly 8192 characters', async () => {
    const prefix = 'https://example.com/';
    const url = prefix + 'a'.repeat(8192 - prefix.length);

    const link = await createLink(owner.apiKey, { url });

    expect(link.url).toBe(url);
    expect((await testApp.request(`/${link.code}`)).headers.get('location')).toBe(url);
  });

  it.each([
    ['javascript:', 'javascript:alert(1)'],
    ['data:', 'data:text/html,<b>hi</b>'],
    ['ftp:', 'ftp://example.com/file'],
    ['file:', 'file:///etc/passwd'],
    ['mailto:', 'mailto:a@example.com'],
    ['relative', '/just/a/path'],
    ['no scheme', 'example.com'],
    ['user info', 'https://bank.example@evil.example/'],
    ['user and password', 'https://user:pass@example.com/'],
    ['a tab inside', 'https://example.com/a\tb'],
    ['a newline inside', 'https://exa\nmple.com/'],
    ['a space inside', 'https://example.com/a b'],
    ['8193 characters', `https://example.com/${'a'.repeat(8193 - 20)}`],
    ['far too long', `https://example.com/${'a'.repeat(100_000)}`],
    ['the short domain', `${TEST_SHORT_BASE_URL}/abc`],
    ['the short domain over http', 'http://sl.test/abc'],
    ['empty', ''],
    ['a number', 12345],
    ['an array', ['https://example.com/']],
    ['an object', { href: 'https://example.com/' }],
    ['null', null],
    ['a boolean', true],
  ])('refuses %s with 400 invalid_url, creating nothing', async (_label, url) => {
    const before = await countLinks();

    const body = await expectProblem(await post({ url }, owner.apiKey), 400, 'invalid_url');

    expect(body.detail).not.toHaveLength(0);
    expect(await countLinks()).toBe(before);
  });

  it('refuses a missing url with 400 invalid_url', async () => {
    await expectProblem(await post({}, owner.apiKey), 400, 'invalid_url');
    await expectProblem(await post({ custom_code: 'nourl' }, owner.apiKey), 400, 'invalid_url');
  });

  it.each([
    ['one unknown field', { url: 'https://example.com/', extra: 1 }],
    ['a misspelt field', { url: 'https://example.com/', customCode: 'abc' }],
  ])('refuses %s with 400 validation_failed', async (_label, json) => {
    const before = await countLinks();

    const body = await expectProblem(await post(json, owner.apiKey), 400, 'validation_failed');

    expect(body.errors?.length).toBeGreaterThan(0);
    expect(await countLinks()).toBe(before);
  });
});

describe('request format', () => {
  let owner: TestAccount;
  beforeAll(async () => {
    owner = await createAccountWithToken(testApp);
  });

  it('answers 400 invalid_json for malformed JSON', async () => {
    const response = await testApp.request('/api/links', {
      method: 'POST',
      headers: { ...owner.apiKey, 'content-type': 'application/json' },
      body: '{"url": "https://example.com/",',
    });
    await expectProblem(response, 400, 'invalid_json');
  });

  it('answers 400 invalid_json for a __proto__ key (prototype poisoning)', async () => {
    const response = await testApp.request('/api/links', {
      method: 'POST',
      headers: { ...owner.apiKey, 'content-type': 'application/json' },
      body: '{"url":"https://example.com/","__proto__":{"admin":true}}',
    });
    await expectProblem(response, 400, 'invalid_json');
  });

  it('answers 400 invalid_json for an empty JSON body', async () => {
    const response = await testApp.request('/api/links', {
      method: 'POST',
      headers: { ...owner.apiKey, 'content-type': 'application/json' },
      body: '',
    });
    await expectProblem(response, 400, 'invalid_json');
  });

  it('accepts Content-Type: application/json with an empty body on calls that take no body (as many SDKs send it)', async () => {
    const created = await testApp.request('/api/links', {
      method: 'POST',
      headers: owner.apiKey,
      json: { url: 'https://example.com/sdk' },
    });
    const { code } = (await created.json()) as { code: string };
    const jsonHeader = { ...owner.apiKey, 'content-type': 'application/json' };

    expect((await testApp.request(`/api/links/${code}`, { headers: jsonHeader })).status).toBe(200);
    expect((await testApp.request('/api/links', { headers: jsonHeader })).status).toBe(200);
    const deleted = await testApp.request(`/api/links/${code}`, { method: 'DELETE', headers: jsonHeader });
    expect(deleted.status).toBe(204);
    await expectProblem(
      await testApp.request(`/api/links/${code}`, { method: 'DELETE', headers: jsonHeader }),
      404,
      'not_found',
    );
  });

  it('still refuses a non-empty body that is not JSON on a DELETE, deleting nothing', async () => {
    const created = await testApp.request('/api/links', {
      method: 'POST',
      headers: owner.apiKey,
      json: { url: 'https://example.com/kept' },
    });
    const { code } = (await created.json()) as { code: string };

    const response = await testApp.request(`/api/links/${code}`, {
      method: 'DELETE',
      headers: { ...owner.apiKey, 'content-type': 'application/json' },
      body: 'not json',
    });

    await expectProblem(response, 400, 'invalid_json');
    expect((await testApp.request(`/api/links/${code}`, { headers: owner.apiKey })).status).toBe(200);
  });

  it('still refuses an empty body on PUT, which takes one', async () => {
    const created = await testApp.request('/api/links', {
      method: 'POST',
      headers: owner.apiKey,
      json: { url: 'https://example.com/put' },
    });
    const { code } = (await created.json()) as { code: string };
    const response = await testApp.request(`/api/links/${code}`, {
      method: 'PUT',
      headers: { ...owner.apiKey, 'content-type': 'application/json' },
      body: '',
    });
    await expectProblem(response, 400, 'invalid_json');
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml'])(
    'answers 415 for a %s body, creating nothing',
    async (contentType) => {
      const before = await countLinks();

      const response = await testApp.request('/api/links', {
        method: 'POST',
        headers: { ...owner.apiKey, 'content-type': contentType },
        body: contentType.startsWith('application/x-www')
          ? 'url=https%3A%2F%2Fexample.com%2F'
          : '{"url":"https://example.com/"}',
      });

      await expectProblem(response, 415, 'unsupported_media_type');
      expect(await countLinks()).toBe(before);
    },
  );

  it('accepts application/json with a charset', async () => {
    const response = await testApp.request('/api/links', {
      method: 'POST',
      headers: { ...owner.apiKey, 'content-type': 'application/json; charset=utf-8' },
      body: '{"url":"https://example.com/charset"}',
    });
    expect(response.status).toBe(201);
  });

  it('answers 413 for a body over 1 MiB', async () => {
    const response = await testApp.request('/api/links', {
      method: 'POST',
      headers: { ...owner.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `https://example.com/${'a'.repeat(1024 * 1024)}` }),
    });
    await expectProblem(response, 413, 'payload_too_large');
  });
});

describe('concurrency', () => {
  it('gives 200 parallel anonymous creations 200 distinct working codes', async () => {
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) => post({ url: `https://example.com/parallel/${i}` })),
    );

    expect(responses.map((response) => response.status)).toEqual(Array(200).fill(201));
    const links = (await Promise.all(responses.map((response) => response.json()))) as Link[];
    expect(new Set(links.map((link) => link.code)).size).toBe(200);
    const redirects = await Promise.all(links.map((link) => testApp.request(`/${link.code}`)));
    redirects.forEach((redirect, i) => {
      expect(redirect.status).toBe(302);
      expect(redirect.headers.get('location')).toBe(links[i].url);
    });
  });

  it('gives exactly one of 30 parallel creations of one custom code a 201, the rest 409', async () => {
    const accounts = await Promise.all(Array.from({ length: 3 }, () => createAccountWithToken(testApp)));

    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        post({ url: `https://example.com/race/${i}`, custom_code: 'contested' }, accounts[i % 3].apiKey),
      ),
    );

    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([201, ...Array(29).fill(409)]);
    for (const response of responses.filter((r) => r.status === 409)) {
      expect(((await response.json()) as Problem).error).toBe('code_taken');
    }
    const winner = (await responses.find((r) => r.status === 201)!.json()) as Link;
    expect((await testApp.request('/contested')).headers.get('location')).toBe(winner.url);
  });
});
