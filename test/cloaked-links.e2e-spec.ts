import { ReportsService } from '../src/reports/reports.service.js';
import { createAccountWithToken, createAdminWithToken, newClient, type TestAccount } from './support/factories.js';
import { signedInBrowser } from './support/browser/form-browser.js';
import { startTestApp, TEST_SHORT_BASE_URL, type TestApp } from './support/test-app.js';

/**
 * A phishing link cloaked behind device targets: a harmless `url` for whoever checks it from a
 * desktop (a moderator, a scanner), the phishing page for the phones it was sent to. Moderation
 * must see and find every destination a link has, not `url` alone.
 */

const APP_ENV = { RATE_LIMIT_ANONYMOUS: '1000000', RATE_LIMIT_TOKEN: '1000000', TRUST_PROXY: '1' };
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148';
const ANDROID = 'Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 Chrome/131.0 Mobile Safari/537.36';

interface AdminLink {
  code: string;
  url: string;
  ios_url: string | null;
  android_url: string | null;
  owner_email: string | null;
  destinations: Array<{ field: string; url: string }>;
}

let testApp: TestApp;
let admin: TestAccount;
let owner: TestAccount;

beforeAll(async () => {
  testApp = await startTestApp(APP_ENV);
  admin = await createAdminWithToken(testApp);
  owner = await createAccountWithToken(testApp);
});
afterAll(async () => {
  await testApp.close();
});

/** An anonymous link, as anyone on the internet makes one. */
async function cloakedLink(json: Record<string, unknown>): Promise<string> {
  const response = await testApp.request('/api/links', { method: 'POST', headers: newClient(), json });
  expect(response.status).toBe(201);
  return ((await response.json()) as { code: string }).code;
}

async function visitAs(code: string, userAgent: string): Promise<string | null> {
  const response = await testApp.request(`/${code}`, { headers: { ...newClient(), 'user-agent': userAgent } });
  return response.headers.get('location');
}

function adminLinks(query: string): Promise<Response> {
  return testApp.request(`/api/admin/links?${query}`, { headers: admin.bearer });
}

describe('a link cloaked behind device targets', () => {
  let code: string;

  beforeAll(async () => {
    code = await cloakedLink({
      url: 'https://harmless-recipes.example/soup',
      ios_url: 'https://ios-phish.example/Apple-ID/login',
      android_url: 'https://android-phish.example/google/verify',
    });
    // The cloak works: a phone goes to the phishing page, a desktop to the soup.
    expect(await visitAs(code, IPHONE)).toBe('https://ios-phish.example/Apple-ID/login');
    expect(await visitAs(code, ANDROID)).toBe('https://android-phish.example/google/verify');
    expect(await visitAs(code, 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0')).toBe(
      'https://harmless-recipes.example/soup',
    );
  });

  it('is found on the admin links page by its iOS or Android host, in any case, and shows every destination', async () => {
    const browser = await signedInBrowser(testApp, admin.accountId);
    for (const q of ['ios-phish.example', 'IOS-PHISH.example', 'android-phish', 'google/verify']) {
      const page = await (await browser.get(`/admin/links?q=${encodeURIComponent(q)}`)).text();
      expect({ q, found: page.includes(`${TEST_SHORT_BASE_URL}/${code}<`) }).toEqual({ q, found: true });
      expect(page).toContain('1 link match');
      expect(page).toContain('https://harmless-recipes.example/soup');
      expect(page).toContain('https://ios-phish.example/Apple-ID/login');
      expect(page).toContain('https://android-phish.example/google/verify');
    }
  });

  it('shows every destination on the reports page, next to the report', async () => {
    await testApp.app
      .get(ReportsService)
      .submit({ short_url: `${TEST_SHORT_BASE_URL}/${code}`, reason: 'phishing', details: 'on my phone', email: '' });
    const browser = await signedInBrowser(testApp, admin.accountId);

    const page = await (await browser.get('/admin/reports')).text();
    const report = page.slice(page.indexOf(`${TEST_SHORT_BASE_URL}/${code}`));
    expect(report).toContain('https://harmless-recipes.example/soup');
    expect(report).toContain('https://ios-phish.example/Apple-ID/login');
    expect(report).toContain('https://android-phish.example/google/verify');
    expect(report).toMatch(/iPhone, iPad, iPod/);
    expect(report).toMatch(/Android/);
  });

  it('is found through the admin API by any destination’s host, with every destination listed', async () => {
    const response = await adminLinks('q=ANDROID-PHISH.EXAMPLE');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: AdminLink[]; total: number; limit: number; offset: number };
    expect(body).toMatchObject({ total: 1, limit: 20, offset: 0 });
    expect(body.data[0]).toMatchObject({
      code,
      url: 'https://harmless-recipes.example/soup',
      ios_url: 'https://ios-phish.example/Apple-ID/login',
      android_url: 'https://android-phish.example/google/verify',
      owner_email: null,
      destinations: [
        { field: 'url', url: 'https://harmless-recipes.example/soup' },
        { field: 'ios_url', url: 'https://ios-phish.example/Apple-ID/login' },
        { field: 'android_url', url: 'https://android-phish.example/google/verify' },
      ],
    });
    const byIos = (await (await adminLinks('q=ios-phish.example')).json()) as { data: AdminLink[] };
    expect(byIos.data.map((link) => link.code)).toEqual([code]);
  });

  it('is disabled by blocking the host of any one of its destinations', async () => {
    const other = await cloakedLink({
      url: 'https://harmless.example/',
      android_url: 'https://apk-drop.example/x.apk',
    });
    const blocked = await testApp.request('/api/admin/blocked-hosts', {
      method: 'POST',
      headers: admin.bearer,
      json: { host: 'apk-drop.example' },
    });
    expect(blocked.status).toBe(201);
    expect(((await blocked.json()) as { disabled_links: number }).disabled_links).toBe(1);
    const visit = await testApp.request(`/${other}`, { headers: newClient() });
    expect(visit.status).toBe(410);
  });
});

describe('blocked hosts apply to every destination', () => {
  beforeAll(async () => {
    const response = await testApp.request('/api/admin/blocked-hosts', {
      method: 'POST',
      headers: admin.bearer,
      json: { host: 'every-destination.example' },
    });
    expect(response.status).toBe(201);
  });

  it.each(['url', 'ios_url', 'android_url'])(
    'refuses %s on a blocked host on create (anonymous or not), bulk and update',
    async (field) => {
      const json = { url: 'https://fine.example/', [field]: 'https://sub.every-destination.example/x' };
      const refused = (response: Response) => ({ status: response.status, field });
      const anonymous = await testApp.request('/api/links', { method: 'POST', headers: newClient(), json });
      expect(refused(anonymous)).toEqual({ status: 400, field });
      expect(await anonymous.json()).toMatchObject({ error: 'blocked_url', errors: [{ field }] });
      const owned = await testApp.request('/api/links', { method: 'POST', headers: owner.apiKey, json });
      expect(refused(owned)).toEqual({ status: 400, field });

      const bulk = await testApp.request('/api/links/bulk', {
        method: 'POST',
        headers: owner.apiKey,
        json: { links: [json] },
      });
      const item = ((await bulk.json()) as { data: Array<{ error?: { error: string } }> }).data[0];
      expect(item.error?.error).toBe('blocked_url');

      const link = await testApp.request('/api/links', {
        method: 'POST',
        headers: owner.apiKey,
        json: { url: 'https://fine.example/update' },
      });
      const { code } = (await link.json()) as { code: string };
      const put = await testApp.request(`/api/links/${code}`, {
        method: 'PUT',
        headers: owner.apiKey,
        json: { [field]: 'https://every-destination.example/' },
      });
      expect(refused(put)).toEqual({ status: 400, field });
      expect(await put.json()).toMatchObject({ error: 'blocked_url', errors: [{ field }] });
    },
  );
});

describe('the admin links API', () => {
  it('pages every account’s links, refuses anyone but an admin token and odd queries without a 500', async () => {
    expect((await testApp.request('/api/admin/links')).status).toBe(401);
    expect((await testApp.request('/api/admin/links', { headers: owner.bearer })).status).toBe(403);
    const all = (await (await adminLinks('limit=1')).json()) as { data: AdminLink[]; total: number; limit: number };
    expect(all.limit).toBe(1);
    expect(all.data).toHaveLength(1);
    expect(all.total).toBeGreaterThan(1);
    for (const query of ['limit=0', 'limit=101', 'offset=-1', 'q=', `q=${'x'.repeat(201)}`, 'q[]=x', 'nope=1']) {
      expect({ query, status: (await adminLinks(query)).status }).toEqual({ query, status: 400 });
    }
    for (const query of ['q=%00', 'q=%25_%5C', 'q=%F0%9F%99%82']) {
      const response = await adminLinks(query);
      expect({ query, status: response.status }).toEqual({ query, status: 200 });
      expect(((await response.json()) as { total: number }).total).toBe(0);
    }
  });
});
