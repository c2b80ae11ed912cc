import { AccountsService } from '../src/accounts/accounts.service.js';
import { DashboardCookies } from '../src/auth/sessions/dashboard-cookies.js';
import { PrismaService } from '../src/database/prisma.service.js';
import { ReportsService } from '../src/reports/reports.service.js';
import { createAccountWithToken, createAdminWithToken, newClient, type TestAccount } from './support/factories.js';
import { Browser, signedInBrowser } from './support/browser/form-browser.js';
import { routesOf } from './support/routes.js';
import { startTestApp, TEST_SHORT_BASE_URL, type TestApp } from './support/test-app.js';
import { createLink, visit } from './support/api-client.js';

const APP_ENV = { RATE_LIMIT_ANONYMOUS: '1000000', RATE_LIMIT_TOKEN: '1000000', TRUST_PROXY: '1' };
const SCRIPT = '<script>alert(1)</script>';

let testApp: TestApp;
let admin: TestAccount;
let user: TestAccount;

beforeAll(async () => {
  testApp = await startTestApp(APP_ENV);
  admin = await createAdminWithToken(testApp);
  user = await createAccountWithToken(testApp);
});
afterAll(async () => {
  await testApp.close();
});

/** The audit log and the changeable state, to show that a refused request changed nothing. */
async function state(): Promise<unknown> {
  const prisma = testApp.app.get(PrismaService);
  return {
    audit: await prisma.auditEvent.count(),
    hosts: await prisma.blockedHost.findMany({ orderBy: { host: 'asc' } }),
    disabledLinks: await prisma.link.count({ where: { disabledAt: { not: null } } }),
    accounts: await prisma.account.findMany({
      select: { id: true, isAdmin: true, disabledAt: true },
      orderBy: { id: 'asc' },
    }),
    reports: await prisma.report.findMany({ select: { id: true, status: true }, orderBy: { id: 'asc' } }),
  };
}

describe('admin pages as an attacker tries them', () => {
  it('answer 404 to a signed-in non-admin on every /admin route, form token or not, and change nothing', async () => {
    const code = (await createLink(testApp, user, { url: 'https://victim.example/' })).code;
    const report = await testApp.app
      .get(ReportsService)
      .submit({ short_url: code, reason: 'spam', details: '', email: '' });
    const routes = routesOf(testApp).filter((route) => route.path === '/admin' || route.path.startsWith('/admin/'));
    expect(routes.length).toBeGreaterThanOrEqual(14);
    const browser = await signedInBrowser(testApp, user.accountId);
    // A real form token of the user's own session: the guard still refuses before any action.
    const csrf = await browser.csrfFrom('/dashboard');
    const before = await state();

    const answers: string[] = [];
    for (const route of routes) {
      const path = route.path
        .replace(':code', code)
        .replace(':id', route.path.includes('reports') ? report.id : admin.accountId);
      const response =
        route.method === 'GET'
          ? await browser.get(path)
          : await browser.post(path, { reason: 'x', host: 'victim.example', return_to: '/admin/links' }, csrf);
      answers.push(`${route.method} ${route.path} ${response.status}`);
    }

    expect(answers).toEqual(routes.map((route) => `${route.method} ${route.path} 404`));
    expect(await state()).toEqual(before);
    expect((await visit(testApp, code)).status).toBe(302);
  });

  it('sends a signed-out visitor to sign in, and refuses an admin’s form without its session’s token', async () => {
    const signedOut = new Browser(testApp);
    const page = await signedOut.get('/admin/accounts?q=x');
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe(`/login?next=${encodeURIComponent('/admin/accounts?q=x')}`);

    const code = (await createLink(testApp, user, { url: 'https://csrf.example/' })).code;
    const browser = await signedInBrowser(testApp, admin.accountId);
    const before = await state();
    for (const csrf of ['', 'forged', await new Browser(testApp).csrfFrom('/login')]) {
      const response = await browser.post(`/admin/links/${code}/disable`, { reason: 'csrf' }, csrf);
      expect(response.status).toBe(403);
      expect((await browser.post('/admin/blocked-hosts', { host: 'csrf.example' }, csrf)).status).toBe(403);
    }
    expect(await state()).toEqual(before);
  });

  it('shows "Admin" in the navigation to admins only', async () => {
    const adminPage = await (await (await signedInBrowser(testApp, admin.accountId)).get('/dashboard')).text();
    const userPage = await (await (await signedInBrowser(testApp, user.accountId)).get('/dashboard')).text();

    expect(adminPage).toContain('<a href="/admin">Admin</a>');
    expect(userPage).not.toContain('href="/admin"');
  });
});

describe('admin pages for an admin', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await signedInBrowser(testApp, admin.accountId);
  });

  it('shows the overview and every section', async () => {
    for (const [path, heading] of [
      ['/admin', 'Administration'],
      ['/admin/reports', 'Reports'],
      ['/admin/reports?status=dismissed', 'Reports'],
      ['/admin/links', 'Links of every account'],
      ['/admin/accounts', 'Accounts'],
      ['/admin/blocked-hosts', 'Blocked hosts'],
      ['/admin/audit', 'Audit log'],
    ]) {
      const response = await browser.get(path);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
      const html = await response.text();
      expect(html).toContain(`<h1>${heading}`);
      expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    }
  });

  it('ignores odd query values instead of failing', async () => {
    for (const path of [
      '/admin/links?page=-1&q[]=x',
      '/admin/links?page=99999999999&q=%00',
      `/admin/links?account=${'x'.repeat(500)}`,
      '/admin/accounts?q=%25_%5C&page=abc',
      '/admin/accounts?q=a%00b',
      '/admin/links?account=%00',
      '/admin/reports?status=%3Cscript%3E&page=0',
      '/admin/audit?page=1e9',
      `/admin/blocked-hosts?done=${encodeURIComponent(SCRIPT)}&host=${encodeURIComponent(SCRIPT)}&links=3`,
    ]) {
      const response = await browser.get(path);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
      expect(await response.text()).not.toContain(SCRIPT);
    }
    // A NUL never reaches the database (PostgreSQL refuses it in text): the owners' search too.
    const api = await testApp.request('/api/links?q=a%00b', { headers: user.apiKey });
    expect(api.status).toBe(200);
    expect(((await api.json()) as { total: number }).total).toBe(0);
    const post = await browser.post('/admin/accounts/%00/enable', {}, undefined, '/admin/accounts');
    expect(post.status).toBe(404);
  });

  it('blocks and unblocks a host from the page; a bad host is said next to the field, escaped', async () => {
    const code = (await createLink(testApp, user, { url: 'https://page-blocked.example/' })).code;

    const blocked = await browser.post('/admin/blocked-hosts', { host: 'Page-Blocked.Example.' });
    expect(blocked.status).toBe(303);
    expect(blocked.headers.get('location')).toBe(
      '/admin/blocked-hosts?done=host-blocked&host=page-blocked.example&links=1',
    );
    const page = await (await browser.get(blocked.headers.get('location')!)).text();
    expect(page).toContain('is blocked: 1 link to it disabled.');
    expect((await visit(testApp, code)).status).toBe(410);

    const refused = await browser.post('/admin/blocked-hosts', { host: `https://${SCRIPT}/` });
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(html).not.toContain(SCRIPT);
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain('The host must be a host name, not a URL');

    const twice = await browser.post('/admin/blocked-hosts', { host: 'page-blocked.example' });
    expect(twice.status).toBe(409);
    expect(await twice.text()).toContain('page-blocked.example is blocked already');

    const unblocked = await browser.post(
      '/admin/blocked-hosts/remove',
      { host: 'page-blocked.example' },
      undefined,
      '/admin/blocked-hosts',
    );
    expect(unblocked.status).toBe(303);
    expect((await visit(testApp, code)).status).toBe(302);
    const gone = await browser.post(
      '/admin/blocked-hosts/remove',
      { host: 'page-blocked.example' },
      undefined,
      '/admin/blocked-hosts',
    );
    expect(gone.status).toBe(404);
  });

  it('counts every link (anonymous ones too) and one account’s, listing them newest first', async () => {
    const owner = await createAccountWithToken(testApp);
    const owned = [];
    for (const n of [1, 2, 3])
      owned.push((await createLink(testApp, owner, { url: `https://counted.example/${n}` })).code);
    const anonymous = await testApp.request('/api/links', {
      method: 'POST',
      headers: newClient(),
      json: { url: 'https://counted.example/anonymous' },
    });
    expect(anonymous.status).toBe(201);
    const anonymousCode = ((await anonymous.json()) as { code: string }).code;
    const order = (page: string, codes: string[]) =>
      codes.map((code) => page.indexOf(`${TEST_SHORT_BASE_URL}/${code}<`)).filter((at) => at >= 0);

    const all = await (await browser.get('/admin/links')).text();
    const everyLink = await testApp.app.get(PrismaService).link.count();
    expect(all).toContain(`${everyLink} links, newest first`);
    const newestFirst = order(all, [anonymousCode, ...[...owned].reverse()]);
    expect(newestFirst).toHaveLength(4);
    expect(newestFirst).toEqual([...newestFirst].sort((a, b) => a - b));

    const theirs = await (await browser.get(`/admin/links?account=${owner.accountId}`)).text();
    expect(theirs).toContain('3 links, newest first');
    expect(order(theirs, [...owned].reverse())).toHaveLength(3);
    expect(theirs).not.toContain(anonymousCode);

    const deleted = await testApp.request(`/api/links/${owned[0]}`, { method: 'DELETE', headers: owner.apiKey });
    expect(deleted.status).toBe(204);
    expect(await (await browser.get(`/admin/links?account=${owner.accountId}`)).text()).toContain(
      '2 links, newest first',
    );
    expect(await (await browser.get('/admin/links')).text()).toContain(`${everyLink - 1} links, newest first`);
    expect(await (await browser.get(`/admin/links?account=${crypto.randomUUID()}`)).text()).toContain(
      '0 links, newest first',
    );
  });

  it('finds links by code, URL or host, disables one with a reason and enables it, back on the same list', async () => {
    const code = (await createLink(testApp, user, { url: 'https://Searchable.example/Some/Path' })).code;
    const list = await (await browser.get('/admin/links?q=SEARCHABLE.example')).text();
    expect(list).toContain(`${TEST_SHORT_BASE_URL}/${code}`);
    expect(list).toContain(user.email);

    const noReason = await browser.post(
      `/admin/links/${code}/disable`,
      { reason: ' ', return_to: '/admin/links?q=searchable' },
      undefined,
      '/admin/links',
    );
    expect(noReason.status).toBe(400);
    expect(await noReason.text()).toContain('Give a reason');
    expect((await visit(testApp, code)).status).toBe(302);

    const disabled = await browser.post(
      `/admin/links/${code}/disable`,
      { reason: `Phishing ${SCRIPT}`, return_to: '/admin/links?q=searchable&page=1' },
      undefined,
      '/admin/links',
    );
    expect(disabled.status).toBe(303);
    expect(disabled.headers.get('location')).toBe('/admin/links?q=searchable&page=1&done=link-disabled');
    expect((await visit(testApp, code)).status).toBe(410);
    const shown = await (await browser.get(`/admin/links?q=${code}`)).text();
    expect(shown).toContain('Phishing &lt;script&gt;');
    expect(shown).not.toContain(SCRIPT);

    // A `return_to` elsewhere is not followed.
    const enabled = await browser.post(
      `/admin/links/${code}/enable`,
      { return_to: 'https://attacker.example/admin/links' },
      undefined,
      '/admin/links',
    );
    expect(enabled.status).toBe(303);
    expect(enabled.headers.get('location')).toBe('/admin/links?done=link-enabled');
    expect((await visit(testApp, code)).status).toBe(302);
  });

  it('disables, enables and deletes accounts; refuses its own and says why', async () => {
    const other = await createAccountWithToken(testApp);
    const code = (await createLink(testApp, other, { url: 'https://other-account.example/' })).code;
    const otherBrowser = await signedInBrowser(testApp, other.accountId);
    expect((await otherBrowser.get('/dashboard')).status).toBe(200);

    const list = await (await browser.get(`/admin/accounts?q=${other.email.slice(0, 12).toUpperCase()}`)).text();
    expect(list).toContain(other.email);

    const disabled = await browser.post(
      `/admin/accounts/${other.accountId}/disable`,
      { reason: 'Spam' },
      undefined,
      '/admin/accounts',
    );
    expect(disabled.status).toBe(303);
    expect((await otherBrowser.get('/dashboard')).status).toBe(303);
    expect((await testApp.request('/api/links', { headers: other.bearer })).status).toBe(403);
    expect((await visit(testApp, code)).status).toBe(410);

    const self = await browser.post(
      `/admin/accounts/${admin.accountId}/disable`,
      { reason: 'oops' },
      undefined,
      '/admin/accounts',
    );
    expect(self.status).toBe(409);
    expect(await self.text()).toContain('You cannot disable your own account');
    const selfDelete = await browser.post(
      `/admin/accounts/${admin.accountId}/delete`,
      {},
      undefined,
      '/admin/accounts',
    );
    expect(selfDelete.status).toBe(409);

    expect(
      (await browser.post(`/admin/accounts/${other.accountId}/enable`, {}, undefined, '/admin/accounts')).status,
    ).toBe(303);
    expect((await visit(testApp, code)).status).toBe(302);
    expect(
      (await browser.post(`/admin/accounts/${other.accountId}/delete`, {}, undefined, '/admin/accounts')).status,
    ).toBe(303);
    expect((await visit(testApp, code)).status).toBe(404);
    expect(await testApp.app.get(AccountsService).findById(other.accountId)).toBeNull();
    const unknown = await browser.post('/admin/accounts/no-such-id/enable', {}, undefined, '/admin/accounts');
    expect(unknown.status).toBe(404);
  });

  it('acts on open reports: disabling the link resolves it, dismissing closes it; details are escaped', async () => {
    const code = (await createLink(testApp, user, { url: 'https://reported-page.example/' })).code;
    const reports = testApp.app.get(ReportsService);
    const first = await reports.submit({
      short_url: `${TEST_SHORT_BASE_URL}/${code}`,
      reason: 'phishing',
      details: SCRIPT,
      email: '',
    });
    const second = await reports.submit({
      short_url: code,
      reason: 'other',
      details: 'not sure',
      email: 'a@example.test',
    });

    const page = await (await browser.get('/admin/reports')).text();
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).not.toContain(SCRIPT);
    expect(page).toContain('https://reported-page.example/');

    const dismissed = await browser.post(`/admin/reports/${second.id}/dismiss`, {}, undefined, '/admin/reports');
    expect(dismissed.status).toBe(303);
    const again = await browser.post(`/admin/reports/${second.id}/dismiss`, {}, undefined, '/admin/reports');
    expect(again.status).toBe(409);

    const disabled = await browser.post(
      `/admin/reports/${first.id}/disable-link`,
      { reason: 'Reported: phishing' },
      undefined,
      '/admin/reports',
    );
    expect(disabled.status).toBe(303);
    expect((await visit(testApp, code)).status).toBe(410);
    expect((await reports.get(first.id)).status).toBe('resolved');
    expect((await reports.get(second.id)).status).toBe('dismissed');
    expect((await browser.post('/admin/reports/not-a-report/dismiss', {}, undefined, '/admin/reports')).status).toBe(
      404,
    );

    const audit = await (await browser.get('/admin/audit')).text();
    expect(audit).toContain('report.dismiss');
    expect(audit).toContain('link.disable');
    expect(audit).toContain(admin.email);
  });
});

describe('signing in to a disabled account', () => {
  it('is refused with a page saying the account is disabled (only to whoever knows the password)', async () => {
    const accounts = testApp.app.get(AccountsService);
    const email = `disabled-${Date.now()}@example.test`;
    const account = await accounts.register(email, 'correct horse battery staple');
    await accounts.disable(account.id, 'Spam');
    const browser = new Browser(testApp);

    const right = await browser.post('/login', { email, password: 'correct horse battery staple' });
    expect(right.status).toBe(403);
    expect(await right.text()).toContain('This account has been disabled by the administrators of this service.');
    expect(browser.cookies.has(testApp.app.get(DashboardCookies).name('session'))).toBe(false);

    const wrong = await browser.post('/login', { email, password: 'wrong horse battery staple' });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).not.toContain('account has been disabled');
  });
});

describe('the owner of a disabled link', () => {
  it('sees it disabled in the list and on its page, with no way to enable it', async () => {
    const code = (await createLink(testApp, user, { url: 'https://owner-sees.example/' })).code;
    await testApp.app.get(PrismaService).link.update({
      where: { code },
      data: { disabledAt: new Date('2026-11-20T08:00:00Z'), disabledCause: 'admin', disabledReason: 'Phishing' },
    });
    const browser = await signedInBrowser(testApp, user.accountId);

    const list = await (await browser.get(`/dashboard?q=${code}`)).text();
    expect(list).toContain('<span class="badge">disabled</span>');
    const page = await (await browser.get(`/dashboard/links/${code}`)).text();
    expect(page).toContain('Since <time datetime="2026-11-20T08:00:00.000Z">2026-11-20 08:00 UTC</time>');
    expect(page).toContain('Only they can enable it again.');
    expect(page).not.toMatch(/\/enable"/);
  });
});

describe('the tokens page', () => {
  it('offers the scope admin to admins only, never ticked at first, and refuses it to anyone else', async () => {
    const adminPage = await (await (await signedInBrowser(testApp, admin.accountId)).get('/dashboard/tokens')).text();
    expect(adminPage).toContain('<input type="checkbox" name="scopes" value="admin">');
    const browser = await signedInBrowser(testApp, user.accountId);
    expect(await (await browser.get('/dashboard/tokens')).text()).not.toContain('value="admin"');

    const forged = await browser.post('/dashboard/tokens', { name: 'sneaky', scopes: ['links:read', 'admin'] });
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('Only an admin&#39;s token may hold the scope admin.');
  });
});
