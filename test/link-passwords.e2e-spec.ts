import { jest } from '@jest/globals';
import { hashPassword } from '../src/accounts/passwords.js';
import { DashboardCookies } from '../src/auth/sessions/dashboard-cookies.js';
import { SessionsService } from '../src/auth/sessions/sessions.service.js';
import { ClickCounter } from '../src/clicks/click-counter.js';
import { PrismaService } from '../src/database/prisma.service.js';
import type { Link, Problem } from '../sdk/client.js';
import { createAccountWithToken, newClient, type TestAccount } from './support/factories.js';
import { Browser } from './support/browser/form-browser.js';
import { startTestApp, TEST_SHORT_BASE_URL, type TestApp } from './support/test-app.js';
import type { TestDatabase } from './support/database/test-database.js';
import { startTwoInstances, type TwoInstances } from './support/processes/two-instances.js';
import { LinkPasswordGuesses } from '../src/redirect/link-password-guesses.js';
import { expectProblem } from './support/problems.js';
import { createLink, requestAs, visit as visitLink, type ApiInit } from './support/api-client.js';

// Many tests here try 30 or more passwords one after the other, each a scrypt hash of 128 MiB:
// 40 to 60 s on an idle machine of two cores, more while other specs run beside them.
jest.setTimeout(180_000);

/**
 * Password-protected links and device targets (issue 31), on two instances sharing one database
 * and one Redis, as behind a load balancer: the API, bulk, the password form (`GET`/`POST
 * /{code}`), its guess limit, and which target each device gets.
 */
const ENV = {
  RATE_LIMIT_ANONYMOUS: '1000000',
  RATE_LIMIT_TOKEN: '1000000',
  // Each test's client has an address of its own (X-Forwarded-For, newClient()).
  TRUST_PROXY: 'true',
};

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
const IPAD =
  'Mozilla/5.0 (iPad; CPU OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.7 Mobile/15E148 Safari/604.1';
const ANDROID =
  'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

type BulkResult = { link?: Link; error?: Problem };

let instances: TwoInstances | undefined;
let database: TestDatabase;
let a: TestApp;
let b: TestApp;
let owner: TestAccount;

beforeAll(async () => {
  instances = await startTwoInstances(ENV);
  ({ database, a, b } = instances);
  owner = await createAccountWithToken(a);
}, 60_000);
afterAll(async () => {
  await instances?.close();
});

const prisma = () => a.app.get(PrismaService);

const api = (path: string, init?: ApiInit, instance = a) => requestAs(instance, owner, path, init);
const create = (json: Record<string, unknown>) => createLink(a, owner, json);

async function put(code: string, json: Record<string, unknown>, instance = a): Promise<Link> {
  const response = await api(`/api/links/${code}`, { method: 'PUT', json }, instance);
  expect(response.status).toBe(200);
  return (await response.json()) as Link;
}

/** A visit as a browser makes it: GET, its user agent, an address of its own. */
const visit = (code: string, client: Record<string, string>, instance = a, userAgent = DESKTOP) =>
  visitLink(instance, code, { 'user-agent': userAgent, ...client });

/** The form token of the password page `client` gets (none when the link shows no form). */
async function formToken(code: string, client: Record<string, string>, instance = a): Promise<string | undefined> {
  const page = await visit(code, client, instance);
  return /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
}

/**
 * The password form's submission, as a browser sends it: with the token of the form it was shown
 * (fetched by the same client first), unless `token` is given (`null`: none, as a cross-site page posts).
 */
async function unlock(
  code: string,
  password: string,
  client: Record<string, string>,
  instance = a,
  userAgent = DESKTOP,
  token?: string | null,
): Promise<Response> {
  const csrf = token === undefined ? await formToken(code, client, instance) : token;
  return instance.request(`/${code}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': userAgent, ...client },
    body: new URLSearchParams({ password, ...(csrf == null ? {} : { _csrf: csrf }) }).toString(),
  });
}

async function clicksOf(code: string): Promise<number> {
  await a.app.get(ClickCounter).flush();
  await b.app.get(ClickCounter).flush();
  const response = await api(`/api/links/${code}`);
  return ((await response.json()) as Link).clicks;
}

describe('password on the API', () => {
  it('is stored as a scrypt hash, never returned, and shown as password_protected', async () => {
    const link = await create({ url: 'https://example.com/secret', password: 'open sesame' });

    expect(link.password_protected).toBe(true);
    expect(JSON.stringify(link)).not.toContain('open sesame');
    expect(JSON.stringify(link)).not.toContain('scrypt');
    const row = await prisma().link.findUniqueOrThrow({ where: { code: link.code } });
    expect(row.passwordHash).toMatch(/^scrypt\$131072\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(row.passwordHash).not.toContain('open sesame');
    const listed = (await (await api('/api/links?limit=100')).json()) as { data: Link[] };
    expect(listed.data.find((item) => item.code === link.code)).toEqual(link);
    const searched = (await (await api('/api/links?q=secret')).json()) as { data: Link[] };
    expect(searched.data.find((item) => item.code === link.code)?.password_protected).toBe(true);
  });

  it('is false on a link without one, and a null password is the same as none', async () => {
    expect((await create({ url: 'https://example.com/open' })).password_protected).toBe(false);
    expect((await create({ url: 'https://example.com/open', password: null })).password_protected).toBe(false);
  });

  it.each([
    ['3 characters', 'abc', 'password must be at least 8 characters long'],
    ['7 characters', 'abcdefg', 'password must be at least 8 characters long'],
    ['257 characters', 'x'.repeat(257), 'password must be at most 256 characters long'],
    ['a number', 1234, 'password must be a string (or null for none)'],
    ['an array', ['open', 'sesame'], 'password must be a string (or null for none)'],
  ])('refuses %s with 400 naming the field, and creates nothing', async (_name, password, message) => {
    const before = await prisma().link.count();

    const problem = await expectProblem(
      await api('/api/links', { method: 'POST', json: { url: 'https://example.com/bad', password } }),
      400,
      'validation_failed',
    );

    expect(problem.errors).toEqual([{ field: 'password', message }]);
    expect(await prisma().link.count()).toBe(before);
  });

  it('takes exactly 8 and 256 characters', async () => {
    expect((await create({ url: 'https://example.com/8', password: 'abcdefgh' })).password_protected).toBe(true);
    expect((await create({ url: 'https://example.com/256', password: 'y'.repeat(256) })).password_protected).toBe(true);
  });

  it('needs an API token: an anonymous link with a password is 401, and nothing is made', async () => {
    const before = await prisma().link.count();

    const response = await a.request('/api/links', {
      method: 'POST',
      headers: newClient(),
      json: { url: 'https://example.com/anon', password: 'open sesame' },
    });

    await expectProblem(response, 401, 'unauthorized');
    expect(await prisma().link.count()).toBe(before);
  });

  it('is set, changed and removed (null) by PUT; a PUT without it keeps it', async () => {
    const link = await create({ url: 'https://example.com/change' });
    const client = newClient();

    expect((await put(link.code, { password: 'first one' })).password_protected).toBe(true);
    expect((await unlock(link.code, 'first one', client)).status).toBe(302);
    expect((await put(link.code, { password: 'second one' })).password_protected).toBe(true);
    expect((await unlock(link.code, 'first one', client)).status).toBe(401);
    expect((await put(link.code, { url: 'https://example.com/changed' })).password_protected).toBe(true);
    expect((await unlock(link.code, 'second one', client)).headers.get('location')).toBe('https://example.com/changed');

    expect((await put(link.code, { password: null })).password_protected).toBe(false);
    const response = await visit(link.code, client);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('https://example.com/changed');
  });

  it('refuses a bad password on PUT and changes nothing, not even the other fields', async () => {
    const link = await create({ url: 'https://example.com/keep', password: 'kept pass' });

    await expectProblem(
      await api(`/api/links/${link.code}`, {
        method: 'PUT',
        json: { url: 'https://example.com/other', password: 'abc' },
      }),
      400,
      'validation_failed',
    );

    const row = await prisma().link.findUniqueOrThrow({ where: { code: link.code } });
    expect(row.url).toBe('https://example.com/keep');
    expect((await unlock(link.code, 'kept pass', newClient())).status).toBe(302);
  });
});

describe('the password form (GET /{code})', () => {
  it('answers 200 with an HTML form, not cached, with the security headers, and counts no click', async () => {
    const link = await create({ url: 'https://example.com/form', password: 'open sesame' });

    const response = await visit(link.code, newClient());

    expect(response.status).toBe(200);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-robots-tag')).toBe('noindex');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    // The form's answer is a redirect to the target, wherever it is (Chromium checks form-action there too).
    expect(response.headers.get('content-security-policy')).toContain("form-action 'self' http: https:");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    const html = await response.text();
    expect(html).toContain('<label for="password">Password</label>');
    expect(html).toContain(`<form method="post" action="/${link.code}"`);
    expect(html).toContain('<button type="submit">Continue</button>');
    expect(html).not.toContain('example.com/form');
    expect(await clicksOf(link.code)).toBe(0);
  });

  it('answers the form again and again: a protected link is never answered by the fast path', async () => {
    const link = await create({ url: 'https://example.com/again', password: 'open sesame' });
    const client = newClient();

    for (let i = 0; i < 3; i++) expect((await visit(link.code, client)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await visit(link.code, client, b)).status).toBe(200);
  });

  it('answers HEAD with 401 and no target', async () => {
    const link = await create({ url: 'https://example.com/head', password: 'open sesame' });

    const response = await a.request(`/${link.code}`, { method: 'HEAD', headers: newClient() });

    expect(response.status).toBe(401);
    expect(response.headers.get('location')).toBeNull();
  });

  it('still answers 410 for a protected link past its expiry, without the form', async () => {
    const link = await create({ url: 'https://example.com/expiring', password: 'open sesame' });
    await prisma().link.update({ where: { code: link.code }, data: { expiresAt: new Date(Date.now() - 1000) } });
    // The change was made behind the service's back: drop the cached link as a change would.
    await put(link.code, { tags: [] });
    await b.app.get(ClickCounter).flush();

    await expectProblem(await visit(link.code, newClient(), b), 410, 'link_expired');
    await expectProblem(await unlock(link.code, 'open sesame', newClient(), b), 410, 'link_expired');
  });
});

describe('the password form (POST /{code})', () => {
  it('redirects with the right password (302) and counts one click', async () => {
    const link = await create({ url: 'https://example.com/unlocked', password: 'open sesame' });

    const response = await unlock(link.code, 'open sesame', newClient());

    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('https://example.com/unlocked');
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(await clicksOf(link.code)).toBe(1);
  });

  it.each([
    ['a wrong password', 'open sesamE'],
    ['an empty one', ''],
    ['a 10,000-character one', 'z'.repeat(10_000)],
    ['script', '<script>alert(1)</script>'],
  ])('answers %s with 401 and the form saying so, and counts no click', async (_name, password) => {
    const link = await create({ url: 'https://example.com/wrong', password: 'open sesame' });

    const response = await unlock(link.code, password, newClient());

    expect(response.status).toBe(401);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await response.text();
    expect(html).toContain('Wrong password');
    expect(html).toContain('aria-invalid="true"');
    expect(html).not.toContain('<script>alert');
    expect(await clicksOf(link.code)).toBe(0);
  });

  it('answers a body without the field, or JSON, as a wrong password, never a 500', async () => {
    const link = await create({ url: 'https://example.com/odd', password: 'open sesame' });
    const client = newClient();
    const token = await formToken(link.code, client);

    const empty = await a.request(`/${link.code}`, { method: 'POST', headers: client });
    const json = await a.request(`/${link.code}`, { method: 'POST', headers: client, json: { password: ['x'] } });
    const repeated = await a.request(`/${link.code}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...client },
      body: `password=open+sesame&password=other&_csrf=${encodeURIComponent(token!)}`,
    });
    const tokens = await a.request(`/${link.code}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...client },
      body: `password=open+sesame&_csrf=${encodeURIComponent(token!)}&_csrf=x`,
    });

    // No form token (no body at all): refused as a form from elsewhere, before any check.
    expect(empty.status).toBe(403);
    expect(json.status).toBe(401);
    expect(repeated.status).toBe(401);
    expect(tokens.status).toBe(403);
  });

  it('takes the password of a link a JSON client posts', async () => {
    const link = await create({ url: 'https://example.com/json', password: 'open sesame' });

    const response = await a.request(`/${link.code}`, {
      method: 'POST',
      headers: newClient(),
      json: { password: 'open sesame' },
    });

    expect(response.status).toBe(302);
  });

  it('answers 404 for an unknown code, and just redirects a link without a password', async () => {
    const link = await create({ url: 'https://example.com/plain' });

    await expectProblem(await unlock('nosuchlink', 'open sesame', newClient()), 404, 'not_found');
    const response = await unlock(link.code, 'anything', newClient());
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('https://example.com/plain');
  });

  it('refuses the 11th try after 10 wrong ones with 429, even the right password, on every instance', async () => {
    const link = await create({ url: 'https://example.com/guessed', password: 'open sesame' });
    const other = await create({ url: 'https://example.com/other', password: 'open sesame' });
    const attacker = newClient();

    for (let i = 0; i < 10; i++) {
      expect((await unlock(link.code, `guess ${i}`, attacker, i % 2 === 0 ? a : b)).status).toBe(401);
    }
    const refused = await unlock(link.code, 'open sesame', attacker, b);

    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(800);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(900);
    expect(refused.headers.get('location')).toBeNull();
    expect(await refused.text()).toContain('Too many wrong passwords. Try again in 15 minutes.');
    expect((await unlock(link.code, 'open sesame', attacker, a)).status).toBe(429);
    // Per link and client: another link, or another client, is not held up.
    expect((await unlock(other.code, 'open sesame', attacker)).status).toBe(302);
    expect((await unlock(link.code, 'open sesame', newClient())).status).toBe(302);
    expect(await clicksOf(link.code)).toBe(1);
  });

  it('checks at most 10 tries sent at once over many connections', async () => {
    const link = await create({ url: 'https://example.com/burst', password: 'open sesame' });
    const attacker = newClient();

    const statuses = await Promise.all(
      Array.from({ length: 30 }, (_, i) => unlock(link.code, `burst ${i}`, attacker, i % 2 === 0 ? a : b)),
    ).then((responses) => responses.map((response) => response.status));

    expect(statuses.filter((status) => status === 401)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
  });

  it('never holds up people who know the password, however many share an address', async () => {
    const link = await create({ url: 'https://example.com/office', password: 'open sesame' });
    const office = newClient();

    for (let i = 0; i < 15; i++) expect((await unlock(link.code, 'open sesame', office)).status).toBe(302);
  });
});

describe('passwords in bulk', () => {
  it('protects the items that have one, hashing a shared password once', async () => {
    const response = await api('/api/links/bulk', {
      method: 'POST',
      json: {
        links: [
          { url: 'https://example.com/b1', password: 'campaign' },
          { url: 'https://example.com/b2', password: 'campaign' },
          { url: 'https://example.com/b3' },
          { url: 'https://example.com/b4', password: 'ab' },
          { url: 'https://example.com/b5', password: 'seven77' },
        ],
      },
    });

    expect(response.status).toBe(200);
    const results = ((await response.json()) as { data: BulkResult[] }).data;
    expect(results.slice(0, 3).map((result) => result.link?.password_protected)).toEqual([true, true, false]);
    expect(results[3].error).toMatchObject({ error: 'validation_failed' });
    expect(results[3].error?.errors).toEqual([
      { field: 'links[3].password', message: 'password must be at least 8 characters long' },
    ]);
    expect(results[4].error?.errors).toEqual([
      { field: 'links[4].password', message: 'password must be at least 8 characters long' },
    ]);
    const rows = await prisma().link.findMany({
      where: { code: { in: [results[0].link!.code, results[1].link!.code] } },
    });
    expect(rows[0].passwordHash).toBe(rows[1].passwordHash);
    expect((await unlock(results[1].link!.code, 'campaign', newClient())).status).toBe(302);
  });

  it('refuses the items past 10 different passwords in one call, and makes the rest', async () => {
    const links = Array.from({ length: 12 }, (_, i) => ({
      url: `https://example.com/p${i}`,
      password: `password-${i}`,
    }));

    const response = await api('/api/links/bulk', { method: 'POST', json: { links } });

    const results = ((await response.json()) as { data: BulkResult[] }).data;
    expect(results.slice(0, 10).every((result) => result.link?.password_protected)).toBe(true);
    for (const result of results.slice(10)) {
      expect(result.error).toMatchObject({ status: 400, error: 'validation_failed' });
      expect(result.error?.errors?.[0].field).toBe('password');
    }
    expect(await prisma().link.count({ where: { url: { in: links.slice(10).map((link) => `${link.url}`) } } })).toBe(0);
    // Ten scrypt hashes of 128 MiB each, on purpose: a second or two alone, over 30 s once on a
    // machine whose two cores ran other suites and benchmarks beside this one.
  }, 120_000);

  it('needs an API token like every bulk call', async () => {
    const response = await a.request('/api/links/bulk', {
      method: 'POST',
      headers: newClient(),
      json: { links: [{ url: 'https://example.com/anon', password: 'open sesame' }] },
    });

    await expectProblem(response, 401, 'unauthorized');
  });
});

describe('device targets', () => {
  it('send iPhones and iPads to ios_url, Android to android_url, the rest to url, on both instances', async () => {
    const link = await create({
      url: 'https://example.com/app',
      ios_url: 'https://apps.apple.com/app/id123456789',
      android_url: 'https://play.google.com/store/apps/details?id=com.example',
    });
    expect(link).toMatchObject({
      ios_url: 'https://apps.apple.com/app/id123456789',
      android_url: 'https://play.google.com/store/apps/details?id=com.example',
      password_protected: false,
    });
    const client = newClient();

    // Twice each: the second answer comes from the cached link. (Clicks are read on `a`: on
    // SQLite an instance knows only its own clicks until they are folded into the links.)
    for (const instance of [a, a]) {
      const where = async (userAgent: string) =>
        (await visit(link.code, client, instance, userAgent)).headers.get('location');
      expect(await where(IPHONE)).toBe('https://apps.apple.com/app/id123456789');
      expect(await where(IPAD)).toBe('https://apps.apple.com/app/id123456789');
      expect(await where(ANDROID)).toBe('https://play.google.com/store/apps/details?id=com.example');
      expect(await where(DESKTOP)).toBe('https://example.com/app');
      expect(await where('')).toBe('https://example.com/app');
    }
    expect(await clicksOf(link.code)).toBe(10);
    for (const userAgent of [IPHONE, IPHONE, ANDROID, ANDROID, DESKTOP]) {
      expect((await visit(link.code, client, b, userAgent)).headers.get('location')).toBe(
        userAgent === IPHONE ? link.ios_url : userAgent === ANDROID ? link.android_url : link.url,
      );
    }
  });

  it('send a device whose target is unset to url', async () => {
    const link = await create({ url: 'https://example.com/ios-only', ios_url: 'https://apps.apple.com/app/id1' });

    expect(link.android_url).toBeNull();
    expect((await visit(link.code, newClient(), a, ANDROID)).headers.get('location')).toBe(
      'https://example.com/ios-only',
    );
    expect((await visit(link.code, newClient(), a, IPHONE)).headers.get('location')).toBe(
      'https://apps.apple.com/app/id1',
    );
  });

  it('are changed and removed (null) by PUT, at once on every instance', async () => {
    const link = await create({ url: 'https://example.com/moved' });
    const client = newClient();
    expect((await visit(link.code, client, b, IPHONE)).headers.get('location')).toBe('https://example.com/moved');

    await put(link.code, { ios_url: 'https://apps.apple.com/app/id2' });
    expect((await visit(link.code, client, b, IPHONE)).headers.get('location')).toBe('https://apps.apple.com/app/id2');

    const cleared = await put(link.code, { ios_url: null });
    expect(cleared.ios_url).toBeNull();
    expect((await visit(link.code, client, b, IPHONE)).headers.get('location')).toBe('https://example.com/moved');
  });

  it.each([
    ['javascript:', { ios_url: 'javascript:alert(1)' }, 'ios_url'],
    ['a data: URL', { android_url: 'data:text/html,<script>alert(1)</script>' }, 'android_url'],
    ['user info', { ios_url: 'https://user:pass@example.com/' }, 'ios_url'],
    ['a number', { android_url: 42 }, 'android_url'],
    ['this service', { ios_url: `${TEST_SHORT_BASE_URL}/abc` }, 'ios_url'],
  ])('refuse %s with 400 invalid_url naming the field, and nothing is made', async (_name, fields, field) => {
    const before = await prisma().link.count();

    const problem = await expectProblem(
      await api('/api/links', { method: 'POST', json: { url: 'https://example.com/x', ...fields } }),
      400,
      'invalid_url',
    );

    expect(problem.errors?.[0].field).toBe(field);
    expect(problem.errors?.[0].message).toMatch(new RegExp(`^${field} `));
    expect(await prisma().link.count()).toBe(before);
  });

  it('apply after the password: the right password from an iPhone goes to ios_url', async () => {
    const link = await create({
      url: 'https://example.com/both',
      password: 'open sesame',
      ios_url: 'https://apps.apple.com/app/id3',
    });

    const response = await unlock(link.code, 'open sesame', newClient(), b, IPHONE);

    expect(response.headers.get('location')).toBe('https://apps.apple.com/app/id3');
  });
});

describe('a plain link', () => {
  it('still redirects on the fast path, and a password added later applies at once', async () => {
    const link = await create({ url: 'https://example.com/fast' });
    const client = newClient();
    expect((await visit(link.code, client, b)).status).toBe(302);
    expect((await visit(link.code, client, b)).status).toBe(302);

    await put(link.code, { password: 'from now on' });

    expect((await visit(link.code, client, b)).status).toBe(200);
  });
});

describe('guesses behind no trusted proxy', () => {
  let direct: TestApp;

  beforeAll(async () => {
    direct = await startTestApp({ ...ENV, TRUST_PROXY: 'false' }, database);
  });
  afterAll(async () => {
    await direct?.close();
  });

  it('counts a client by its connection: a new X-Forwarded-For each try does not get it more tries', async () => {
    const link = await create({ url: 'https://example.com/spoofed', password: 'open sesame' });

    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await unlock(link.code, `guess ${i}`, newClient(), direct)).status);

    expect(statuses).toEqual([...Array<number>(10).fill(401), 429, 429]);
  });
});

describe('the password form’s token (cross-site posts)', () => {
  it('is in the form, as a hidden field, without any cookie', async () => {
    const link = await create({ url: 'https://example.com/token', password: 'open sesame' });

    const page = await visit(link.code, newClient());

    expect(await page.text()).toMatch(/<input type="hidden" name="_csrf" value="[0-9a-z]+\.[\w-]{43}">/);
    expect(page.headers.getSetCookie()).toEqual([]);
  });

  it('refuses a form posted without one (a cross-site page) with 403 and a fresh form, counting no guess', async () => {
    const link = await create({ url: 'https://example.com/cross-site', password: 'open sesame' });
    const visitor = newClient();

    // A page elsewhere makes the visitor's browser post guesses: none is checked or counted.
    for (let i = 0; i < 15; i++) {
      const forged = await unlock(
        link.code,
        `guess ${i}`,
        { ...visitor, origin: 'https://evil.example' },
        a,
        DESKTOP,
        null,
      );
      expect(forged.status).toBe(403);
      expect(forged.headers.get('location')).toBeNull();
    }
    const refused = await unlock(link.code, 'open sesame', visitor, b, DESKTOP, null);
    expect(refused.status).toBe(403);
    const html = await refused.text();
    expect(html).toContain('This form has expired or was not sent from this page');
    expect(html).toMatch(/name="_csrf" value="[^"]+"/);
    expect(await clicksOf(link.code)).toBe(0);

    // The visitor is not locked out: the form they were shown works, the right password included.
    expect((await unlock(link.code, 'open sesame', visitor, b)).status).toBe(302);
    expect(await a.app.get(LinkPasswordGuesses).guessesOn(link.code)).toEqual({
      wrongGuesses: 0,
      lockedForSeconds: null,
    });
  });

  it('refuses a token issued to another address, for another link, or made up, and counts no guess', async () => {
    const link = await create({ url: 'https://example.com/bound', password: 'open sesame' });
    const other = await create({ url: 'https://example.com/bound-other', password: 'open sesame' });
    const visitor = newClient();
    // An attacker's server fetches a form of its own and puts its token in a cross-site page.
    const attackers = await formToken(link.code, newClient());

    for (const token of [attackers, await formToken(other.code, visitor), 'abc.def', '']) {
      expect((await unlock(link.code, 'guess', visitor, a, DESKTOP, token)).status).toBe(403);
    }
    expect((await unlock(link.code, 'open sesame', visitor, b)).status).toBe(302);
  });

  it('is void once the link’s password changes: the form is shown again', async () => {
    const link = await create({ url: 'https://example.com/changed-password', password: 'open sesame' });
    const visitor = newClient();
    const token = await formToken(link.code, visitor);

    await put(link.code, { password: 'another one' });

    expect((await unlock(link.code, 'another one', visitor, a, DESKTOP, token)).status).toBe(403);
    expect((await unlock(link.code, 'another one', visitor)).status).toBe(302);
  });

  it('is not asked of a JSON client (no browser can post JSON across sites without CORS)', async () => {
    const link = await create({ url: 'https://example.com/json-client', password: 'open sesame' });

    const response = await b.request(`/${link.code}`, {
      method: 'POST',
      headers: newClient(),
      json: { password: 'open sesame' },
    });

    expect(response.status).toBe(302);
  });
});

describe('wrong passwords per link, from every address', () => {
  it('lock the link after 30 wrong ones in 15 minutes from 30 addresses over both instances, even for the right password', async () => {
    const link = await create({ url: 'https://example.com/spread', password: 'open sesame' });
    const other = await create({ url: 'https://example.com/spread-other', password: 'open sesame' });

    for (let i = 0; i < 30; i++) {
      const response = await unlock(link.code, `guess ${i}`, newClient(), i % 2 === 0 ? a : b);
      expect({ i, status: response.status }).toEqual({ i, status: 401 });
    }
    const locked = await unlock(link.code, 'open sesame', newClient(), b);

    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(800);
    expect(Number(locked.headers.get('retry-after'))).toBeLessThanOrEqual(900);
    expect(await locked.text()).toContain('Too many wrong passwords were tried on this link');
    expect((await unlock(link.code, 'open sesame', newClient(), a)).status).toBe(429);
    // Another link is not held up.
    expect((await unlock(other.code, 'open sesame', newClient())).status).toBe(302);
    expect(await clicksOf(link.code)).toBe(0);
  });

  it('check at most 30 tries sent at once from many addresses', async () => {
    const link = await create({ url: 'https://example.com/spread-burst', password: 'open sesame' });
    const clients = Array.from({ length: 45 }, () => newClient());
    const tokens = await Promise.all(clients.map((client) => formToken(link.code, client)));

    const statuses = await Promise.all(
      clients.map((client, i) => unlock(link.code, `burst ${i}`, client, i % 2 === 0 ? a : b, DESKTOP, tokens[i])),
    ).then((responses) => responses.map((response) => response.status));

    expect(statuses.filter((status) => status === 401)).toHaveLength(30);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);
  });

  it('do not count the right password: many people who know it never lock the link', async () => {
    const link = await create({ url: 'https://example.com/popular', password: 'open sesame' });

    for (let i = 0; i < 32; i++) {
      const response = await unlock(link.code, 'open sesame', newClient(), i % 2 === 0 ? a : b);
      expect({ i, status: response.status }).toEqual({ i, status: 302 });
    }
  });

  it('are shown to the owner on the link’s page: how many, and the lock with when it ends', async () => {
    const link = await create({ url: 'https://example.com/owner-sees', password: 'open sesame' });
    const browser = new Browser(a);
    browser.cookies.set(
      a.app.get(DashboardCookies).name('session'),
      await a.app.get(SessionsService).start(owner.accountId),
    );
    expect(await (await browser.get(`/dashboard/links/${link.code}`)).text()).not.toContain('wrong password');

    for (let i = 0; i < 3; i++) expect((await unlock(link.code, `guess ${i}`, newClient(), b)).status).toBe(401);
    expect(await (await browser.get(`/dashboard/links/${link.code}`)).text()).toContain(
      '3 wrong passwords were tried on this link in the last 15 minutes.',
    );

    for (let i = 3; i < 30; i++) expect((await unlock(link.code, `guess ${i}`, newClient(), a)).status).toBe(401);
    const page = await (await browser.get(`/dashboard/links/${link.code}`)).text();
    expect(page).toMatch(
      /Locked: 30 wrong passwords were tried on this link\. Nobody can open it for \d+ more minutes?/,
    );
  });
});

describe('a password set before passwords needed 8 characters', () => {
  it('keeps working, and a change that leaves it alone keeps it; a new short one is refused', async () => {
    const link = await create({ url: 'https://example.com/legacy', password: 'long enough' });
    // As a link made before issue 54 has it: 4 characters.
    await prisma().link.update({ where: { code: link.code }, data: { passwordHash: await hashPassword('abcd') } });
    await put(link.code, { url: 'https://example.com/legacy-moved' });

    const response = await unlock(link.code, 'abcd', newClient(), b);
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('https://example.com/legacy-moved');
    await expectProblem(
      await api(`/api/links/${link.code}`, { method: 'PUT', json: { password: 'abcd' } }),
      400,
      'validation_failed',
    );
    expect((await unlock(link.code, 'abcd', newClient())).status).toBe(302);
  });

  it('is refused on the link’s page too, next to the field, with the link unchanged', async () => {
    const link = await create({ url: 'https://example.com/page-short' });
    const browser = new Browser(a);
    browser.cookies.set(
      a.app.get(DashboardCookies).name('session'),
      await a.app.get(SessionsService).start(owner.accountId),
    );

    const response = await browser.post(
      `/dashboard/links/${link.code}/password`,
      { password: 'seven77' },
      undefined,
      `/dashboard/links/${link.code}`,
    );

    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain('at least 8 characters');
    expect(html).toContain('aria-invalid="true"');
    expect(((await api(`/api/links/${link.code}`).then((r) => r.json())) as Link).password_protected).toBe(false);
  });
});
