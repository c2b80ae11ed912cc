import { jest } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { AccountsRepository } from '../src/accounts/accounts.repository.js';
import { AccountsService } from '../src/accounts/accounts.service.js';
import { PrismaService } from '../src/database/prisma.service.js';
import { hashSessionId } from '../src/auth/sessions/sessions.service.js';
import { createAccountWithToken, newClient } from './support/factories.js';
import { Browser } from './support/browser/form-browser.js';
import { qrCodeSvg } from '../src/links/qr-code.js';
import { startTestApp, TEST_SHORT_BASE_URL, type TestApp } from './support/test-app.js';
import { newEmail, PASSWORD, signUpWithForms } from './support/people.js';

describe('Account dashboard', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp({ RATE_LIMIT_ANONYMOUS: '1000000', RATE_LIMIT_TOKEN: '1000000', TRUST_PROXY: 'true' });
  });
  afterAll(() => testApp.close());

  it('signs up with a session cookie that is HttpOnly, SameSite=Lax, Secure on an https base URL', async () => {
    const browser = new Browser(testApp);
    const response = await browser.post('/signup', { email: newEmail(), password: PASSWORD });

    expect(response.status).toBe(303);
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith('__Host-shortlink_session='));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/Path=\//);
    expect((await browser.get('/dashboard')).status).toBe(200);
  });

  it('stores only the hash of the session id', async () => {
    const browser = await signUpWithForms(testApp);
    const raw = browser.cookies.get('__Host-shortlink_session')!;
    const prisma = testApp.app.get(PrismaService);

    expect(await prisma.session.findUnique({ where: { idHash: raw } })).toBeNull();
    expect(await prisma.session.findUnique({ where: { idHash: hashSessionId(raw) } })).not.toBeNull();
  });

  it('refuses a POST without or with a wrong CSRF token with 403, changing nothing', async () => {
    const browser = await signUpWithForms(testApp);

    const missing = await browser.post('/dashboard', { url: 'https://example.com/csrf' }, '');
    const wrong = await browser.post('/dashboard', { url: 'https://example.com/csrf' }, 'forged-token');

    expect(missing.status).toBe(403);
    expect(wrong.status).toBe(403);
    expect(await missing.text()).toContain('<html');
    expect(await (await browser.get('/dashboard')).text()).toContain('No links yet');
  });

  it('sends a signed-out visitor to sign in, with next, and back after signing in', async () => {
    const email = newEmail();
    await signUpWithForms(testApp, email);
    const visitor = new Browser(testApp);

    const page = await visitor.get('/dashboard/tokens');
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/login?next=%2Fdashboard%2Ftokens');

    const signedIn = await visitor.post(
      '/login?next=%2Fdashboard%2Ftokens',
      { email, password: PASSWORD, next: '/dashboard/tokens' },
      undefined,
      '/login?next=%2Fdashboard%2Ftokens',
    );
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/dashboard/tokens');
  });

  it.each(['https://evil.example/', '//evil.example/', '/\\evil.example', 'javascript:alert(1)'])(
    'never redirects off-site after sign-in (next=%s)',
    async (next) => {
      const email = newEmail();
      await signUpWithForms(testApp, email);
      const visitor = new Browser(testApp);

      const response = await visitor.post('/login', { email, password: PASSWORD, next });

      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/dashboard');
    },
  );

  it('answers a wrong password and an unknown email the same way (401)', async () => {
    const email = newEmail();
    await signUpWithForms(testApp, email);
    const visitor = new Browser(testApp);

    const wrongPassword = await visitor.post('/login', { email, password: 'not the password' });
    const unknownEmail = await visitor.post('/login', { email: newEmail(), password: 'not the password' });

    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    const message = (html: string) => /role="alert">([^<]*)</.exec(html)?.[1];
    expect(message(await wrongPassword.text())).toBe(message(await unknownEmail.text()));
  });

  it('refuses sign-up with an email that exists (made by the CLI) and keeps the input', async () => {
    const email = newEmail();
    await testApp.app.get(AccountsService).create(email);
    const browser = new Browser(testApp);

    const response = await browser.post('/signup', { email, password: PASSWORD });

    expect(response.status).toBe(409);
    const html = await response.text();
    expect(html).toContain('already registered');
    expect(html).toContain(`value="${email}"`);
  });

  it('shows a short password next to its field', async () => {
    const response = await new Browser(testApp).post('/signup', { email: newEmail(), password: 'short' });

    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/id="password-error">Use at least 8 characters/);
  });

  it('escapes HTML in link URLs and token names everywhere', async () => {
    const browser = await signUpWithForms(testApp);
    await browser.post('/dashboard', { url: 'https://example.com/"><script>alert(1)</script>' });
    const tokens = await browser.post('/dashboard/tokens', {
      name: '<img src=x onerror=alert(1)>',
      scopes: 'links:read',
    });

    const dashboard = await (await browser.get('/dashboard')).text();
    const tokenPage = await tokens.text();
    expect(dashboard).not.toContain('<script>alert(1)');
    expect(tokenPage).not.toContain('<img src=x');
    expect(tokenPage).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('answers 404 for another account’s link code, and changes nothing', async () => {
    const owner = await createAccountWithToken(testApp);
    const created = await testApp.request('/api/links', {
      method: 'POST',
      headers: owner.bearer,
      json: { url: 'https://example.com/mine', custom_code: `own-${randomBytes(3).toString('hex')}` },
    });
    const { code } = (await created.json()) as { code: string };
    const other = await signUpWithForms(testApp);
    const csrf = await other.csrfFrom('/dashboard');

    const notFound = await other.get(`/dashboard/links/${code}`);
    expect(notFound.status).toBe(404);
    // Still signed in on the error page: its header signs out with the page's own CSRF token.
    const errorPage = await notFound.text();
    expect(errorPage).toContain('>Sign out</button>');
    const errorCsrf = /name="_csrf" value="([^"]+)"/.exec(errorPage)?.[1] ?? '';
    expect((await other.post(`/dashboard/links/${code}`, { url: 'https://evil.example/' }, csrf)).status).toBe(404);
    await other.post(`/dashboard/links/${code}/delete`, {}, csrf);
    // Nor can it set or remove the link's password.
    expect((await other.post(`/dashboard/links/${code}/password`, { password: 'taken over' }, csrf)).status).toBe(404);
    expect((await other.post(`/dashboard/links/${code}/password/remove`, {}, csrf)).status).toBe(404);
    const still = await testApp.request(`/api/links/${code}`, { headers: owner.bearer });
    expect(await still.json()).toMatchObject({ url: 'https://example.com/mine', password_protected: false });
    expect((await other.post('/logout', {}, errorCsrf)).status).toBe(303);
    expect((await other.get('/dashboard')).status).toBe(303);
  });

  it('creates a link with the same rules and errors as the API, keeping the input', async () => {
    const browser = await signUpWithForms(testApp);

    const bad = await browser.post('/dashboard', { url: 'ftp://example.com/', custom_code: 'ok-code' });
    expect(bad.status).toBe(400);
    const html = await bad.text();
    expect(html).toContain('id="url-error"');
    expect(html).toContain('value="ftp://example.com/"');

    const reserved = await browser.post('/dashboard', { url: 'https://example.com/', custom_code: 'dashboard' });
    expect(await reserved.text()).toContain('is reserved');

    const long = await browser.post('/dashboard', {
      url: `https://example.com/${'a'.repeat(10_000)}`,
      custom_code: 'x'.repeat(10_000),
    });
    expect(long.status).toBe(400);
  });

  it('creates a link with tags, and keeps the input with the reason when one is refused', async () => {
    const browser = await signUpWithForms(testApp);

    const created = await browser.post('/dashboard', { url: 'https://example.com/tagged', tags: 'News, spring-sale' });
    expect(created.status).toBe(303);
    const code = new URL(created.headers.get('location')!, 'http://x').searchParams.get('created')!;
    expect(await (await browser.get('/dashboard?tag=news')).text()).toContain(`/dashboard/links/${code}"`);

    const refused = await browser.post('/dashboard', { url: 'https://example.com/bad-tag', tags: 'ok not_ok' });
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(html).toContain(
      'The tags must each be 1 to 32 letters (a-z), digits or hyphens: &quot;not_ok&quot; is not.',
    );
    expect(html).toContain('value="ok not_ok"');
  });

  it('shows a new link’s page with an empty 30-day chart, its table and no referrers yet', async () => {
    const browser = await signUpWithForms(testApp);
    const created = await browser.post('/dashboard', { url: 'https://example.com/quiet' });
    const code = new URL(created.headers.get('location')!, 'http://x').searchParams.get('created')!;

    const page = await browser.get(`/dashboard/links/${code}`);

    expect(page.status).toBe(200);
    const html = await page.text();
    const today = new Date().toISOString().slice(0, 10);
    expect(html).toMatch(new RegExp(`role="img" aria-label="No clicks from \\d{4}-\\d{2}-\\d{2} to ${today}\\."`));
    expect(html.match(/<rect /g)).toHaveLength(30);
    expect(html.match(/<tr><td><time datetime=/g)).toHaveLength(30);
    expect(html).toContain('No clicks in the last 30 days yet.');
    // Laid out with SVG attributes: no inline style or script for the CSP to block.
    expect(html).not.toMatch(/<script(?![^>]*src=)|style="/);
  });

  it('deletes a link twice without an error (a double-submitted form)', async () => {
    const browser = await signUpWithForms(testApp);
    const created = await browser.post('/dashboard', { url: 'https://example.com/twice' });
    const code = new URL(created.headers.get('location')!, 'http://x').searchParams.get('created')!;
    const csrf = await browser.csrfFrom('/dashboard');

    expect((await browser.post(`/dashboard/links/${code}/delete`, {}, csrf)).status).toBe(303);
    expect((await browser.post(`/dashboard/links/${code}/delete`, {}, csrf)).status).toBe(303);
    expect((await browser.get(`/dashboard/links/${code}`)).status).toBe(404);
  });

  it('searches the links by part of a code or URL, paging through the matches', async () => {
    const browser = await signUpWithForms(testApp);
    for (const [url, code] of [
      ['https://example.com/Spring-Sale', 'spring1'],
      ['https://example.com/summer', 'summer1'],
      ['https://example.com/50%_off', 'percent1'],
    ]) {
      expect((await browser.post('/dashboard', { url, custom_code: code })).status).toBe(303);
    }

    const found = await (await browser.get('/dashboard?q=SPRING')).text();
    expect(found).toContain('1 link match “SPRING”');
    expect(found).toContain('/dashboard/links/spring1');
    expect(found).not.toContain('/dashboard/links/summer1');
    expect(found).toContain('value="SPRING"');
    // % and _ are the characters themselves.
    const literal = await (await browser.get(`/dashboard?q=${encodeURIComponent('%_')}`)).text();
    expect(literal).toContain('/dashboard/links/percent1');
    expect(literal).not.toContain('/dashboard/links/spring1');
    const none = await (await browser.get('/dashboard?q=autumn')).text();
    expect(none).toContain('No matches');
    const tooLong = await browser.get(`/dashboard?q=${'a'.repeat(201)}`);
    expect(tooLong.status).toBe(200);
    expect(await tooLong.text()).toContain('Search for at most 200 characters.');
  });

  it('sets, shows, refuses and clears an expiry (UTC); an expired link can still be edited', async () => {
    const browser = await signUpWithForms(testApp);
    const past = await browser.post('/dashboard', { url: 'https://example.com/past', expires_at: '2001-01-01T00:00' });
    expect(past.status).toBe(400);
    const pastHtml = await past.text();
    expect(pastHtml).toContain('The expiry must be in the future.');
    expect(pastHtml).toContain('value="2001-01-01T00:00"');

    const created = await browser.post('/dashboard', {
      url: 'https://example.com/later',
      expires_at: '2099-06-01T12:30',
    });
    expect(created.status).toBe(303);
    const code = new URL(created.headers.get('location')!, 'http://x').searchParams.get('created')!;
    expect(await (await browser.get('/dashboard')).text()).toContain(
      'expires <time datetime="2099-06-01T12:30:00.000Z">',
    );
    const page = await (await browser.get(`/dashboard/links/${code}`)).text();
    expect(page).toContain('value="2099-06-01T12:30"');
    expect(page).toContain('2099-06-01 12:30 UTC');

    // Expired since: the page says so, and saving a new target keeps the (past) expiry as it is.
    await testApp.app.get(PrismaService).link.update({
      where: { code },
      data: { expiresAt: new Date('2020-01-01T00:00:00Z') },
    });
    const expired = await (await browser.get(`/dashboard/links/${code}`)).text();
    expect(expired).toContain('This link has expired');
    expect(await (await browser.get('/dashboard')).text()).toContain('<span class="badge">expired</span>');
    const retargeted = await browser.post(
      `/dashboard/links/${code}`,
      { url: 'https://example.com/retargeted', expires_at: '2020-01-01T00:00' },
      undefined,
      `/dashboard/links/${code}`,
    );
    expect(retargeted.status).toBe(303);
    expect(await testApp.app.get(PrismaService).link.findUnique({ where: { code } })).toMatchObject({
      url: 'https://example.com/retargeted',
      expiresAt: new Date('2020-01-01T00:00:00Z'),
    });
    // Cleared: the link is kept for good, and redirects again.
    await browser.post(
      `/dashboard/links/${code}`,
      { url: 'https://example.com/retargeted', expires_at: '' },
      undefined,
      `/dashboard/links/${code}`,
    );
    expect(await testApp.app.get(PrismaService).link.findUnique({ where: { code } })).toMatchObject({
      expiresAt: null,
    });
    expect((await testApp.request(`/${code}`)).status).toBe(302);
  });

  it("shows the link's QR code and offers it as an SVG download, to its owner only", async () => {
    const browser = await signUpWithForms(testApp);
    const created = await browser.post('/dashboard', {
      url: 'https://example.com/qr',
      custom_code: `qr-${randomBytes(3).toString('hex')}`,
    });
    const code = new URL(created.headers.get('location')!, 'http://x').searchParams.get('created')!;
    const expected = await qrCodeSvg(`${TEST_SHORT_BASE_URL}/${code}`);

    const page = await (await browser.get(`/dashboard/links/${code}`)).text();
    expect(page).toContain(`aria-label="QR code of ${TEST_SHORT_BASE_URL}/${code}"`);
    expect(page).toContain(expected);
    const download = await browser.get(`/dashboard/links/${code}/qr.svg`);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(download.headers.get('content-disposition')).toBe(`attachment; filename="${code}-qr.svg"`);
    expect(await download.text()).toBe(expected);

    const stranger = await signUpWithForms(testApp);
    expect((await stranger.get(`/dashboard/links/${code}/qr.svg`)).status).toBe(404);
  });

  it('ends a session idle for longer than SESSION_TTL_DAYS', async () => {
    const browser = await signUpWithForms(testApp);
    const raw = browser.cookies.get('__Host-shortlink_session')!;
    await testApp.app.get(PrismaService).session.update({
      where: { idHash: hashSessionId(raw) },
      data: { lastSeenAt: new Date(Date.now() - 31 * 86_400_000) },
    });

    const response = await browser.get('/dashboard');

    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toMatch(/^\/login\?next=/);
  });

  it('never lets a session cookie authorise the API, nor a token a page', async () => {
    const browser = await signUpWithForms(testApp);
    const owner = await createAccountWithToken(testApp);

    const api = await testApp.request('/api/links', {
      headers: { cookie: `__Host-shortlink_session=${browser.cookies.get('__Host-shortlink_session')}` },
    });
    const page = await testApp.request('/dashboard', { headers: owner.bearer, redirect: 'manual' });

    expect(api.status).toBe(401);
    expect(page.status).toBe(303);
  });

  it('keeps the API JSON-only: a form body on /api/* is 415', async () => {
    const response = await testApp.request('/api/links', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'url=https%3A%2F%2Fexample.com',
    });
    expect(response.status).toBe(415);
  });

  it('revokes only the account’s own tokens', async () => {
    const owner = await createAccountWithToken(testApp);
    const browser = await signUpWithForms(testApp);

    const response = await browser.post(
      `/dashboard/tokens/${owner.tokenId}/revoke`,
      {},
      undefined,
      '/dashboard/tokens',
    );

    expect(response.status).toBe(404);
    expect((await testApp.request('/api/links', { headers: owner.bearer })).status).toBe(200);
  });

  it('changing the password ends the other sessions; deleting the account takes its links', async () => {
    const email = newEmail();
    const first = await signUpWithForms(testApp, email);
    const second = new Browser(testApp);
    await second.post('/login', { email, password: PASSWORD });
    expect((await second.get('/dashboard')).status).toBe(200);

    const changed = await first.post(
      '/account/password',
      { current_password: PASSWORD, new_password: 'a new password' },
      undefined,
      '/account',
    );
    expect(changed.status).toBe(303);
    expect((await second.get('/dashboard')).status).toBe(303);
    expect((await first.get('/dashboard')).status).toBe(200);

    await first.post('/dashboard', { url: 'https://example.com/gone' });
    const gone = await testApp.app
      .get(PrismaService)
      .link.findFirstOrThrow({ where: { url: 'https://example.com/gone' } });
    // Followed twice: the second answer comes from the redirect cache.
    expect((await testApp.request(`/${gone.code}`)).status).toBe(302);
    expect((await testApp.request(`/${gone.code}`)).status).toBe(302);
    const wrongConfirm = await first.post(
      '/account/delete',
      { confirm_email: 'someone@else.test' },
      undefined,
      '/account',
    );
    expect(wrongConfirm.status).toBe(400);
    const deleted = await first.post('/account/delete', { confirm_email: email }, undefined, '/account');
    expect(deleted.status).toBe(303);
    expect(await testApp.app.get(AccountsService).findByEmail(email)).toBeNull();
    // The account's links went with it, cached redirects included.
    expect((await testApp.request(`/${gone.code}`)).status).toBe(404);
  });

  it('answers 404 on the account page for an account gone while its session still opened the page', async () => {
    const browser = await signUpWithForms(testApp);
    // A session goes with its account; this is the moment in between (the account deleted elsewhere).
    const lookup = jest.spyOn(testApp.app.get(AccountsRepository), 'findById').mockResolvedValueOnce(null);
    try {
      const page = await browser.get('/account');

      expect(page.status).toBe(404);
      const html = await page.text();
      expect(html).toContain('There is no such link or page in your account.');
      expect(html).toContain('>Sign out</button>');
      expect(lookup).toHaveBeenCalledTimes(1);
    } finally {
      lookup.mockRestore();
    }
  });

  it('makes an anonymous link on the front page', async () => {
    const visitor = new Browser(testApp);
    const response = await visitor.post('/', { url: 'https://example.com/front' });

    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/id="short-url"[^>]*>https:\/\/sl\.test\/[0-9A-Za-z]{7}</);
  });
});

describe('Account dashboard limits', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    // TRUST_PROXY: each test's client gets an address of its own (X-Forwarded-For, see newClient()).
    testApp = await startTestApp({ SIGNUP: 'closed', TRUST_PROXY: 'true' });
  });
  afterAll(() => testApp.close());

  it('refuses sign-up when SIGNUP=closed', async () => {
    const browser = new Browser(testApp);
    expect(await (await browser.get('/signup')).text()).toContain('Sign-up is closed');

    const response = await browser.post('/signup', { email: newEmail(), password: PASSWORD }, undefined, '/login');
    expect(response.status).toBe(403);
  });

  it('limits sign-in attempts per email to 10 in 15 minutes (429), even with the right password', async () => {
    const email = newEmail();
    await testApp.app
      .get(AccountsService)
      .setPasswordByEmail((await testApp.app.get(AccountsService).create(email)).email, PASSWORD);
    const visitor = new Browser(testApp);
    const csrf = await visitor.csrfFrom('/login');

    for (let attempt = 0; attempt < 10; attempt++) {
      expect((await visitor.post('/login', { email, password: 'wrong password' }, csrf)).status).toBe(401);
    }
    const blocked = await visitor.post('/login', { email, password: PASSWORD }, csrf);
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('limits sign-in attempts per client IP to 10 in 15 minutes, whatever the emails; other IPs go on', async () => {
    const email = newEmail();
    await testApp.app
      .get(AccountsService)
      .setPasswordByEmail((await testApp.app.get(AccountsService).create(email)).email, PASSWORD);
    const guesser = new Browser(testApp, newClient());
    const csrf = await guesser.csrfFrom('/login');

    for (let attempt = 0; attempt < 10; attempt++) {
      const guess = await guesser.post('/login', { email: newEmail(), password: 'wrong password' }, csrf);
      expect(guess.status).toBe(401);
    }
    const blocked = await guesser.post('/login', { email, password: PASSWORD }, csrf);
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await blocked.text()).toContain('Too many sign-in attempts');
    expect(blocked.headers.getSetCookie().some((line) => line.startsWith('__Host-shortlink_session='))).toBe(false);

    const someoneElse = new Browser(testApp, newClient());
    const signedIn = await someoneElse.post('/login', { email, password: PASSWORD });
    expect(signedIn.status).toBe(303);
  });
});
