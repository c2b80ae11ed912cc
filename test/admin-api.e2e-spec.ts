import { PrismaService } from '../src/database/prisma.service.js';
import { TokensService } from '../src/auth/tokens.service.js';
import { AccountsService } from '../src/accounts/accounts.service.js';
import { ReportsService } from '../src/reports/reports.service.js';
import { ADMIN_SCOPE, SCOPES } from '../src/auth/scopes.js';
import { createAccountWithToken, createAdminWithToken, newClient, type TestAccount } from './support/factories.js';
import { startTestApp, TEST_SHORT_BASE_URL, type TestApp } from './support/test-app.js';
import { createLink, visit as visitLink } from './support/api-client.js';

const NO_RATE_LIMITS = { RATE_LIMIT_ANONYMOUS: '1000000', RATE_LIMIT_TOKEN: '1000000', TRUST_PROXY: '1' };

interface Link {
  code: string;
  url: string;
  disabled_at: string | null;
}

let testApp: TestApp;
let admin: TestAccount;
let owner: TestAccount;

beforeAll(async () => {
  testApp = await startTestApp(NO_RATE_LIMITS);
  admin = await createAdminWithToken(testApp);
  owner = await createAccountWithToken(testApp);
});
afterAll(async () => {
  await testApp.close();
});

/** A link of `account` (null: anonymous), from an address of its own. */
const newLink = (account: TestAccount | null, json: Record<string, unknown>) =>
  createLink(testApp, account, json, newClient()) as Promise<Link>;

async function getLink(account: TestAccount, code: string): Promise<Link> {
  const response = await testApp.request(`/api/links/${code}`, { headers: account.apiKey });
  expect(response.status).toBe(200);
  return (await response.json()) as Link;
}

/** Follows a short link: its status, and its target or page. */
async function visit(code: string, method = 'GET'): Promise<{ status: number; location: string | null; body: string }> {
  const response = await visitLink(testApp, code, newClient(), method);
  return { status: response.status, location: response.headers.get('location'), body: await response.text() };
}

function adminCall(path: string, init: RequestInit & { json?: unknown } = {}, account: TestAccount = admin) {
  return testApp.request(`/api/admin/${path}`, {
    ...init,
    headers: { ...account.bearer, ...(init.headers as Record<string, string> | undefined) },
  });
}

async function block(host: string): Promise<Response> {
  return adminCall('blocked-hosts', { method: 'POST', json: { host } });
}

async function unblock(host: string): Promise<Response> {
  return adminCall(`blocked-hosts/${encodeURIComponent(host)}`, { method: 'DELETE' });
}

async function auditActions(): Promise<string[]> {
  const events = await testApp.app.get(PrismaService).auditEvent.findMany({ orderBy: { createdAt: 'asc' } });
  return events.map((event) => `${event.via} ${event.actor} ${event.action} ${event.target}`);
}

/** Every admin route, as an attacker would try it. */
const ADMIN_ROUTES: Array<{ method: string; path: string; json?: unknown }> = [
  { method: 'GET', path: 'blocked-hosts' },
  { method: 'POST', path: 'blocked-hosts', json: { host: 'attacker-blocks.example' } },
  { method: 'DELETE', path: 'blocked-hosts/victim.example' },
  { method: 'POST', path: 'links/VICTIM1/disable', json: { reason: 'mine now' } },
  { method: 'POST', path: 'links/VICTIM1/enable' },
  { method: 'GET', path: 'reports?status=open' },
  { method: 'GET', path: 'links?q=fine.example' },
];

describe('the admin API refuses everyone but an admin token with the scope admin', () => {
  let victim: Link;

  beforeAll(async () => {
    await testApp.app.get(PrismaService).blockedHost.create({ data: { host: 'victim.example', createdBy: 'test' } });
    victim = await newLink(owner, { url: 'https://fine.example/', custom_code: 'VICTIM1' });
  });
  afterAll(async () => {
    await testApp.app.get(PrismaService).blockedHost.deleteMany({ where: { host: 'victim.example' } });
  });

  it('answers 401 without a token, 403 to a token without admin, 403 to an admin token without admin, and changes nothing', async () => {
    const adminWithoutScope = await createAdminWithToken(testApp, [...SCOPES]);
    const answers: string[] = [];
    for (const route of ADMIN_ROUTES) {
      for (const [who, headers] of [
        ['anonymous', {}],
        ['user', owner.bearer],
        ['user (x-api-key)', owner.apiKey],
        ['admin without the scope', adminWithoutScope.bearer],
        ['malformed', { authorization: 'Bearer nonsense' }],
      ] as const) {
        const response = await testApp.request(`/api/admin/${route.path}`, {
          method: route.method,
          headers: { ...newClient(), ...headers },
          json: route.json,
        });
        const body = (await response.json()) as { error: string };
        answers.push(`${route.method} ${route.path} ${who}: ${response.status} ${body.error}`);
      }
    }

    expect(answers).toEqual(
      ADMIN_ROUTES.flatMap((route) => [
        `${route.method} ${route.path} anonymous: 401 unauthorized`,
        `${route.method} ${route.path} user: 403 forbidden`,
        `${route.method} ${route.path} user (x-api-key): 403 forbidden`,
        `${route.method} ${route.path} admin without the scope: 403 forbidden`,
        `${route.method} ${route.path} malformed: 401 unauthorized`,
      ]),
    );
    const prisma = testApp.app.get(PrismaService);
    expect((await prisma.blockedHost.findMany()).map((row) => row.host)).toEqual(['victim.example']);
    expect((await getLink(owner, victim.code)).disabled_at).toBeNull();
    expect(await auditActions()).toEqual([]);
  });

  it('refuses the scope admin to anyone but an admin, and stops honouring it once the account is no longer one', async () => {
    await expect(testApp.app.get(TokensService).create(owner.accountId, 'sneaky', [ADMIN_SCOPE])).rejects.toMatchObject(
      {
        errorName: 'validation_failed',
        fieldErrors: [{ field: 'scopes', message: "Only an admin's token may hold the scope admin." }],
      },
    );

    const demoted = await createAdminWithToken(testApp);
    expect((await adminCall('blocked-hosts', {}, demoted)).status).toBe(200);
    await testApp.app.get(AccountsService).setAdmin(demoted.accountId, false);

    const refused = await adminCall('blocked-hosts', {}, demoted);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { detail: string }).detail).toBe('The API token lacks the scope admin');
    // Its other scopes work as before.
    expect((await testApp.request('/api/links', { headers: demoted.bearer })).status).toBe(200);
  });
});

describe('odd input to the admin API', () => {
  it('answers odd paths, queries and bodies with a 4xx, never a 500, and changes nothing', async () => {
    const prisma = testApp.app.get(PrismaService);
    const before = await prisma.blockedHost.count();
    const cases: Array<[string, string, unknown?]> = [
      ['DELETE', 'blocked-hosts/%00'],
      ['DELETE', 'blocked-hosts/a%00b.example'],
      ['DELETE', 'blocked-hosts/%F0%9F%99'],
      ['DELETE', `blocked-hosts/${'a'.repeat(5000)}.example`],
      ['DELETE', 'blocked-hosts/..%2F..%2Fetc'],
      ['POST', 'links/%00/disable', { reason: 'x' }],
      ['POST', 'links/%F0%9F%99/enable'],
      ['POST', `links/${'a'.repeat(65)}/disable`, { reason: 'x' }],
      ['POST', 'blocked-hosts', { host: 'a\u0000b.example' }],
      ['POST', 'blocked-hosts', { host: 'x'.repeat(2000) }],
      ['POST', 'blocked-hosts', { host: ['evil.example'] }],
      ['POST', 'blocked-hosts', { host: { toString: 'evil.example' } }],
      ['POST', 'blocked-hosts', { host: '\ud800.example' }],
      ['GET', 'reports?status[]=open'],
      ['GET', 'reports?limit=%00'],
    ];
    for (const [method, path, json] of cases) {
      const response = await adminCall(path, { method, json });
      const where = `${method} ${path.slice(0, 60)}`;
      expect({ where, clientError: response.status >= 400 && response.status < 500 }).toEqual({
        where,
        clientError: true,
      });
    }
    expect(await prisma.blockedHost.count()).toBe(before);
  });
});

describe('blocked hosts', () => {
  it('blocks a host given in any spelling, as the URL parser writes it, and lists it', async () => {
    const response = await block('  Spelled.EXAMPLE.  ');

    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe('/api/admin/blocked-hosts/spelled.example');
    expect(await response.json()).toEqual({
      host: 'spelled.example',
      created_at: expect.stringMatching(/Z$/),
      created_by: admin.email,
      disabled_links: 0,
    });
    expect((await block('bücher.example')).status).toBe(201);
    expect((await block('xn--bcher-kva.example')).status).toBe(409);

    const list = (await (await adminCall('blocked-hosts')).json()) as { data: Array<{ host: string }> };
    expect(list.data.map((entry) => entry.host)).toEqual(
      expect.arrayContaining(['spelled.example', 'xn--bcher-kva.example']),
    );
    expect((await unblock('SPELLED.example.')).status).toBe(204);
    expect((await unblock('bücher.example')).status).toBe(204);
  });

  it.each([
    ['https://evil.example/login', 'host must be a host name, not a URL: give evil.example'],
    ['evil.example:8443', 'host must be given without a port: blocking evil.example blocks it on every port'],
    ['*.evil.example', 'host must be a host name without a wildcard: evil.example blocks its subdomains already'],
    ['com', 'host must have at least two labels, e.g. "evil.example": "com" would block a whole domain'],
    ['evil example', 'host must be a host name alone, e.g. "evil.example": no path, spaces or user info'],
    ['<script>alert(1)</script>', 'host must be a host name alone, e.g. "evil.example": no path, spaces or user info'],
    ['', 'host must not be empty'],
  ])('refuses %j with a clear 400 and blocks nothing', async (host, detail) => {
    const response = await block(host);

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: 'validation_failed',
      detail,
      errors: [{ field: 'host', message: detail }],
    });
    expect(await testApp.app.get(PrismaService).blockedHost.count({ where: { host: { contains: 'evil' } } })).toBe(0);
  });

  it('refuses a body of the wrong shape (400) and a host blocked already (409)', async () => {
    for (const json of [{ host: 42 }, {}, { host: 'a.example', extra: 1 }, ['a.example']]) {
      const response = await adminCall('blocked-hosts', { method: 'POST', json });
      expect(response.status).toBe(400);
    }
    const notJson = await adminCall('blocked-hosts', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"host":',
    });
    expect(notJson.status).toBe(400);

    expect((await block('twice.example')).status).toBe(201);
    const again = await block('TWICE.example');
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: 'admin_conflict', detail: 'twice.example is blocked already' });
    expect((await unblock('twice.example')).status).toBe(204);
    const gone = await unblock('twice.example');
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { detail: string }).detail).toBe('twice.example is not blocked');
    expect((await unblock('https://twice.example/')).status).toBe(400);
  });

  it('disables every live link to the host and its subdomains at once (device targets too), and nothing else', async () => {
    const apex = await newLink(owner, { url: 'https://phish.example/login' });
    await visit(apex.code); // cached by this instance before the block
    const sub = await newLink(owner, { url: 'http://WWW.phish.example:8080/x' });
    const anonymous = await newLink(null, { url: 'https://deep.a.phish.example/' });
    const device = await newLink(owner, { url: 'https://fine.example/', ios_url: 'https://phish.example/app' });
    const lookalike = await newLink(owner, { url: 'https://notphish.example/' });
    const inPath = await newLink(owner, { url: 'https://fine.example/phish.example/' });
    const inQuery = await newLink(owner, { url: 'https://fine.example/?next=https://phish.example/' });

    const response = await block('phish.example');

    expect(response.status).toBe(201);
    expect(((await response.json()) as { disabled_links: number }).disabled_links).toBe(4);
    for (const link of [apex, sub, anonymous, device]) {
      const answer = await visit(link.code);
      expect({ code: link.code, status: answer.status }).toEqual({ code: link.code, status: 410 });
    }
    for (const link of [lookalike, inPath, inQuery]) {
      expect((await visit(link.code)).status).toBe(302);
    }
    // The owner still sees the link, disabled.
    expect((await getLink(owner, apex.code)).disabled_at).toEqual(expect.stringMatching(/Z$/));
    expect((await getLink(owner, lookalike.code)).disabled_at).toBeNull();
    expect((await unblock('phish.example')).status).toBe(204);
  });

  it('answers a disabled link with 410 and a small page linking to /report (HEAD: the status alone)', async () => {
    const link = await newLink(owner, { url: 'https://gone.example/' });
    expect((await block('gone.example')).status).toBe(201);

    const page = await testApp.request(`/${link.code}`, { headers: newClient() });
    expect(page.status).toBe(410);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).toContain('This link has been disabled');
    expect(html).toContain('href="/report"');
    expect(html).toContain(`${TEST_SHORT_BASE_URL}/${link.code}`);
    expect(html).not.toContain('gone.example');

    const head = await visit(link.code, 'HEAD');
    expect(head).toEqual({ status: 410, location: null, body: '' });
    // Posting to it (a password form) is refused the same way.
    const post = await testApp.request(`/${link.code}`, {
      method: 'POST',
      headers: { ...newClient(), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'password=x',
    });
    expect(post.status).toBe(410);
    expect((await unblock('gone.example')).status).toBe(204);
    expect((await visit(link.code)).status).toBe(302);
  });

  it('refuses links to a blocked host everywhere links are made: API, anonymous, bulk, update, quick shorten', async () => {
    expect((await block('refused.example')).status).toBe(201);
    const expectBlocked = async (response: Response, field = 'url') => {
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        error: 'blocked_url',
        detail: `${field} points at a blocked host (refused.example): links to it are not allowed on this service`,
        errors: [{ field }],
      });
    };

    await expectBlocked(
      await testApp.request('/api/links', {
        method: 'POST',
        headers: owner.apiKey,
        json: { url: 'https://refused.example/' },
      }),
    );
    await expectBlocked(
      await testApp.request('/api/links', {
        method: 'POST',
        headers: newClient(),
        json: { url: 'https://Sub.Refused.Example./' },
      }),
    );
    await expectBlocked(
      await testApp.request('/api/links', {
        method: 'POST',
        headers: owner.apiKey,
        json: { url: 'https://fine.example/', android_url: 'https://refused.example/apk' },
      }),
      'android_url',
    );
    const bulk = await testApp.request('/api/links/bulk', {
      method: 'POST',
      headers: owner.apiKey,
      json: { links: [{ url: 'https://fine.example/bulk' }, { url: 'http://refused.example:81/' }] },
    });
    expect(bulk.status).toBe(200);
    const results = ((await bulk.json()) as { data: Array<{ link?: Link; error?: { error: string } }> }).data;
    expect(results[0].link?.url).toBe('https://fine.example/bulk');
    expect(results[1].error?.error).toBe('blocked_url');

    const link = await newLink(owner, { url: 'https://fine.example/update' });
    await expectBlocked(
      await testApp.request(`/api/links/${link.code}`, {
        method: 'PUT',
        headers: owner.apiKey,
        json: { url: 'https://refused.example/' },
      }),
    );
    expect((await getLink(owner, link.code)).url).toBe('https://fine.example/update');

    const quick = await testApp.request(`/api/s?url=${encodeURIComponent('https://refused.example/')}`, {
      headers: newClient(),
    });
    expect(quick.status).toBe(400);
    expect(await quick.text()).toBe('error: blocked_url');
    expect((await unblock('refused.example')).status).toBe(204);
  });

  it('re-enables on unblocking only the links the block disabled, not those an admin disabled or another block holds', async () => {
    const byBlock = await newLink(owner, { url: 'https://both.example/' });
    const byAdmin = await newLink(owner, { url: 'https://both.example/by-hand' });
    const byParent = await newLink(owner, { url: 'https://a.child.both.example/' });
    expect(
      (await adminCall(`links/${byAdmin.code}/disable`, { method: 'POST', json: { reason: 'Phishing kit' } })).status,
    ).toBe(200);
    expect((await block('both.example')).status).toBe(201);
    expect((await block('child.both.example')).status).toBe(201);

    // Blocked twice over: unblocking the parent leaves the child's block.
    expect((await unblock('both.example')).status).toBe(204);

    expect((await visit(byBlock.code)).status).toBe(302);
    expect((await visit(byAdmin.code)).status).toBe(410);
    expect((await visit(byParent.code)).status).toBe(410);
    const enable = await adminCall(`links/${byParent.code}/enable`, { method: 'POST' });
    expect(enable.status).toBe(409);
    expect(await enable.json()).toMatchObject({ error: 'admin_conflict' });

    expect((await unblock('child.both.example')).status).toBe(204);
    expect((await visit(byParent.code)).status).toBe(302);
    expect((await visit(byAdmin.code)).status).toBe(410);
  });
});

describe('disabling and enabling links by hand', () => {
  it('enables a link a block disabled once its owner moved it off the host (unblocking could not find it)', async () => {
    const link = await newLink(owner, { url: 'https://moved-away.example/' });
    expect((await block('moved-away.example')).status).toBe(201);
    const moved = await testApp.request(`/api/links/${link.code}`, {
      method: 'PUT',
      headers: owner.apiKey,
      json: { url: 'https://elsewhere.example/' },
    });
    expect(((await moved.json()) as Link).disabled_at).not.toBeNull();

    expect((await unblock('moved-away.example')).status).toBe(204);
    expect((await visit(link.code)).status).toBe(410);
    const enabled = await adminCall(`links/${link.code}/enable`, { method: 'POST' });
    expect(enabled.status).toBe(200);
    expect(await visit(link.code)).toMatchObject({ status: 302, location: 'https://elsewhere.example/' });
  });

  it('disables any account’s link (the cached redirect too), resolves its open reports, and enables it again', async () => {
    const link = await newLink(owner, { url: 'https://by-hand.example/' });
    expect((await visit(link.code)).status).toBe(302);
    const report = await testApp.app.get(ReportsService).submit({
      short_url: `${TEST_SHORT_BASE_URL}/${link.code}`,
      reason: 'phishing',
      details: 'a fake bank',
      email: '',
    });

    const disabled = await adminCall(`links/${link.code}/disable`, {
      method: 'POST',
      json: { reason: 'Fake bank login' },
    });

    expect(disabled.status).toBe(200);
    expect(await disabled.json()).toMatchObject({
      code: link.code,
      url: 'https://by-hand.example/',
      disabled_at: expect.stringMatching(/Z$/),
    });
    expect((await visit(link.code)).status).toBe(410);
    const open = (await (await adminCall('reports?status=open')).json()) as { data: Array<{ id: string }> };
    expect(open.data.map((entry) => entry.id)).not.toContain(report.id);
    const resolved = (await (await adminCall('reports?status=resolved')).json()) as { data: Array<{ id: string }> };
    expect(resolved.data.map((entry) => entry.id)).toContain(report.id);

    // The owner cannot bring it back: a change of its target leaves it disabled.
    const put = await testApp.request(`/api/links/${link.code}`, {
      method: 'PUT',
      headers: owner.apiKey,
      json: { url: 'https://by-hand.example/other' },
    });
    expect(put.status).toBe(200);
    expect(((await put.json()) as Link).disabled_at).not.toBeNull();
    expect((await visit(link.code)).status).toBe(410);

    const enabled = await adminCall(`links/${link.code}/enable`, { method: 'POST' });
    expect(enabled.status).toBe(200);
    expect(((await enabled.json()) as Link).disabled_at).toBeNull();
    const back = await visit(link.code);
    expect(back).toMatchObject({ status: 302, location: 'https://by-hand.example/other' });
    expect(await auditActions()).toEqual(
      expect.arrayContaining([
        `api ${admin.email} link.disable ${link.code}`,
        `api ${admin.email} link.enable ${link.code}`,
      ]),
    );
  });

  it('answers 404 for an unknown code, 400 without a reason or with an overlong one, and changes nothing', async () => {
    const link = await newLink(owner, { url: 'https://kept.example/' });
    const answers = await Promise.all([
      adminCall('links/NoSuchCode/disable', { method: 'POST', json: { reason: 'x' } }),
      adminCall('links/NoSuchCode/enable', { method: 'POST' }),
      adminCall('links/%3Cscript%3E/disable', { method: 'POST', json: { reason: 'x' } }),
      adminCall(`links/${link.code}/disable`, { method: 'POST', json: {} }),
      adminCall(`links/${link.code}/disable`, { method: 'POST', json: { reason: '   ' } }),
      adminCall(`links/${link.code}/disable`, { method: 'POST', json: { reason: 'x'.repeat(501) } }),
      adminCall(`links/${link.code}/disable`, { method: 'POST', json: { reason: 5 } }),
    ]);

    expect(answers.map((response) => response.status)).toEqual([404, 404, 404, 400, 400, 400, 400]);
    expect((await getLink(owner, link.code)).disabled_at).toBeNull();
  });
});

describe('reports through the admin API', () => {
  it('lists open reports, newest first, in the contract’s shape; a bad status is 400', async () => {
    const link = await newLink(owner, { url: 'https://reported.example/' });
    const report = await testApp.app
      .get(ReportsService)
      .submit({ short_url: link.code, reason: 'spam', details: '<b>spam</b>', email: 'Someone@Example.test' });

    const response = await adminCall('reports?status=open');

    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: Array<Record<string, unknown>> };
    expect(body.data[0]).toEqual({
      id: report.id,
      short_url: `${TEST_SHORT_BASE_URL}/${link.code}`,
      code: link.code,
      reason: 'spam',
      details: '<b>spam</b>',
      created_at: expect.stringMatching(/Z$/),
      status: 'open',
    });
    for (const query of ['status=closed', 'status=', 'status=open&status=open', 'limit=0', 'limit=abc']) {
      expect({ query, status: (await adminCall(`reports?${query}`)).status }).toEqual({ query, status: 400 });
    }
  });
});

describe('disabled accounts', () => {
  it('answer 403 account_disabled to their tokens, disable their links, and bring them back when enabled', async () => {
    const user = await createAccountWithToken(testApp);
    const live = await newLink(user, { url: 'https://user-live.example/' });
    const onBlocked = await newLink(user, { url: 'https://user-blocked.example/' });
    await visit(live.code);
    const accounts = testApp.app.get(AccountsService);

    await accounts.disable(user.accountId, 'Spam account');

    const refused = await testApp.request('/api/links', { headers: user.bearer });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      error: 'account_disabled',
      detail: 'This account has been disabled by an administrator of this service',
    });
    const create = await testApp.request('/api/links', {
      method: 'POST',
      headers: user.apiKey,
      json: { url: 'https://x.example/' },
    });
    expect(create.status).toBe(403);
    expect((await visit(live.code)).status).toBe(410);

    // A host blocked while the account is disabled keeps its links disabled after it is enabled.
    expect((await block('user-blocked.example')).status).toBe(201);
    await accounts.enable(user.accountId);

    expect((await testApp.request('/api/links', { headers: user.bearer })).status).toBe(200);
    expect((await visit(live.code)).status).toBe(302);
    expect((await visit(onBlocked.code)).status).toBe(410);
    expect((await unblock('user-blocked.example')).status).toBe(204);
    expect((await visit(onBlocked.code)).status).toBe(302);
  });

  it('refuses to disable, demote or delete the last admin, or an admin’s own account', async () => {
    const accounts = testApp.app.get(AccountsService);
    const prisma = testApp.app.get(PrismaService);
    // Only one admin left for this test: the others are demoted.
    await prisma.account.updateMany({
      where: { isAdmin: true, NOT: { id: admin.accountId } },
      data: { isAdmin: false },
    });

    await expect(accounts.disable(admin.accountId, null, admin.accountId)).rejects.toMatchObject({
      errorName: 'admin_conflict',
      detail: 'You cannot disable your own account',
    });
    await expect(accounts.disable(admin.accountId, null)).rejects.toMatchObject({
      errorName: 'admin_conflict',
      detail: `${admin.email} is the last admin of this instance and cannot be disabled: make another account an admin first`,
    });
    await expect(accounts.setAdmin(admin.accountId, false)).rejects.toMatchObject({ errorName: 'admin_conflict' });
    await expect(accounts.delete(admin.accountId)).rejects.toMatchObject({ errorName: 'admin_conflict' });
    expect(await accounts.get(admin.accountId)).toMatchObject({ is_admin: true, disabled_at: null });
  });
});
