import { AccountsService } from '../src/accounts/accounts.service.js';
import { newClient } from './support/factories.js';
import { Browser } from './support/browser/form-browser.js';
import { shortlinkInProcess } from './support/processes/cli-in-process.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { codeAt, newEmail, PASSWORD, turnOnTwoFactor } from './support/people.js';

describe('Two-factor sign-in (TOTP)', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp({ TRUST_PROXY: 'true' });
  });
  afterAll(() => testApp.close());

  /** Signs up and turns TOTP on; the secret, the step used to turn it on and the recovery codes. */
  async function withTwoFactor(email = newEmail('tf')) {
    const owner = new Browser(testApp);
    expect((await owner.post('/signup', { email, password: PASSWORD })).status).toBe(303);
    const { secret, step, answer: enabled } = await turnOnTwoFactor(owner);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(enabled.status).toBe(200);
    const html = await enabled.text();
    const codes = [...html.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((m) => m[1]);
    return { email, owner, secret, step, codes, html, enabled };
  }

  /** Password, then (if asked) the code; the answer to the code step. */
  async function signIn(email: string, code?: string, browser = new Browser(testApp), next = '') {
    const password = await browser.post(`/login${next}`, { email, password: PASSWORD }, undefined, `/login${next}`);
    if (code === undefined) return password;
    expect(password.status).toBe(303);
    expect(password.headers.get('location')).toBe('/login/code');
    return browser.post('/login/code', { code }, undefined, '/login/code');
  }

  it('turns on with a code from the app and shows ten recovery codes once', async () => {
    const owner = new Browser(testApp);
    expect((await owner.post('/signup', { email: newEmail('tf'), password: PASSWORD })).status).toBe(303);
    const page = await (await owner.get('/account')).text();
    const secret = /aria-label="Secret key">([A-Z2-7]+)</.exec(page)![1];
    expect(page).toContain('<svg');
    expect(page).toMatch(/<label for="totp_code">Code<\/label>/);

    const wrong = await owner.post(
      '/account/two-factor',
      { totp_secret: secret, code: '000000' },
      undefined,
      '/account',
    );
    expect(wrong.status).toBe(400);
    // The same secret stays on the page, so the app the owner set up still matches.
    expect(await wrong.text()).toContain(`aria-label="Secret key">${secret}<`);

    const { enabled, codes, html } = await withTwoFactor();
    expect(enabled.headers.get('cache-control')).toBe('no-store');
    expect(html).toContain('aria-label="Recovery codes"');
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z0-9]{5}-[a-z0-9]{5}$/);
  });

  it('asks for the code after the password, and signs in only with it (a new session, back to next)', async () => {
    const { email, secret, step } = await withTwoFactor();
    const browser = new Browser(testApp);

    const password = await browser.post(
      '/login?next=%2Fdashboard%2Ftokens',
      { email, password: PASSWORD, next: '/dashboard/tokens' },
      undefined,
      '/login',
    );
    expect(password.status).toBe(303);
    expect(password.headers.get('location')).toBe('/login/code');
    expect([...browser.cookies.keys()]).not.toContain('__Host-shortlink_session');
    expect((await browser.get('/dashboard')).status).toBe(303);
    const page = await browser.get('/login/code');
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<label for="code">Code<\/label>/);

    const signedIn = await browser.post(
      '/login/code',
      { code: await codeAt(secret, step + 1) },
      undefined,
      '/login/code',
    );
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/dashboard/tokens');
    expect((await browser.get('/dashboard')).status).toBe(200);
    // The step is used up: the page now sends back to the password.
    expect((await browser.get('/login/code')).headers.get('location')).toBe('/login');
  });

  it('refuses a replayed code, a code from the wrong step and garbage, never signing in', async () => {
    const { email, secret, step } = await withTwoFactor();
    const used = await codeAt(secret, step + 1);
    expect((await signIn(email, used)).status).toBe(303);

    for (const code of [
      used,
      await codeAt(secret, step - 3),
      await codeAt(secret, step + 4),
      '12345',
      'abcdef',
      ' '.repeat(50),
      '0'.repeat(20),
    ]) {
      const browser = new Browser(testApp);
      const refused = await signIn(email, code, browser);
      expect(refused.status).toBe(401);
      expect(await refused.text()).toContain('That code is not right');
      expect([...browser.cookies.keys()]).not.toContain('__Host-shortlink_session');
    }
  });

  it('takes each recovery code once, on its own or typed in capitals with spaces', async () => {
    const { email, codes } = await withTwoFactor();

    expect((await signIn(email, codes[0])).status).toBe(303);
    expect((await signIn(email, codes[0])).status).toBe(401);
    expect((await signIn(email, ` ${codes[1].toUpperCase().replace('-', ' ')} `)).status).toBe(303);
    const account = await testApp.app.get(AccountsService).findByEmail(email);
    await expect(testApp.app.get(AccountsService).twoFactorStatus(account!.id)).resolves.toEqual({
      enabled: true,
      recoveryCodesLeft: 8,
    });
  });

  it('counts wrong codes against the sign-in limit: the eleventh attempt is refused, right code or not', async () => {
    const { email, secret, step } = await withTwoFactor();
    const browser = new Browser(testApp);
    expect((await browser.post('/login', { email, password: PASSWORD })).status).toBe(303);
    const csrf = await browser.csrfFrom('/login/code');

    for (let attempt = 0; attempt < 10; attempt++) {
      browser.moveTo(newClient());
      expect((await browser.post('/login/code', { code: String(100000 + attempt) }, csrf)).status).toBe(401);
    }
    browser.moveTo(newClient());
    const limited = await browser.post('/login/code', { code: await codeAt(secret, step + 1) }, csrf);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('without a password step, the code page leads back to sign-in', async () => {
    const browser = new Browser(testApp);
    expect((await browser.get('/login/code')).headers.get('location')).toBe('/login');
    browser.cookies.set('__Host-shortlink_signin', 'A'.repeat(43));
    const csrf = await browser.csrfFrom('/login');
    const posted = await browser.post('/login/code', { code: '123456' }, csrf);
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toBe('/login');
  });

  it('turns off only with the password and a code', async () => {
    const { email, owner, secret, step } = await withTwoFactor();
    const off = (password: string, code: string) =>
      owner.post('/account/two-factor/delete', { password, code }, undefined, '/account');

    expect((await off('not the password', await codeAt(secret, step + 1))).status).toBe(400);
    expect((await off(PASSWORD, '000000')).status).toBe(400);
    const done = await off(PASSWORD, await codeAt(secret, step + 1));
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/account?two_factor=off');

    // Signing in needs the password alone again.
    const plain = await signIn(email);
    expect(plain.status).toBe(303);
    expect(plain.headers.get('location')).toBe('/dashboard');
  });

  it('counts wrong attempts to turn it off like sign-ins: the eleventh is refused (429), right or not', async () => {
    const { owner, secret, step } = await withTwoFactor();
    const off = (password: string, code: string) =>
      owner.post('/account/two-factor/delete', { password, code }, undefined, '/account');

    for (let attempt = 0; attempt < 10; attempt++) {
      owner.moveTo(newClient());
      expect((await off(`wrong password ${attempt}`, '000000')).status).toBe(400);
    }
    owner.moveTo(newClient());
    const limited = await off(PASSWORD, await codeAt(secret, step + 1));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await limited.text()).toContain('Too many wrong attempts');
  });

  it('shortlink account reset-2fa turns it off for an owner who lost the app', async () => {
    const { email } = await withTwoFactor();
    const env = { DATABASE_URL: testApp.database.url };

    const reset = await shortlinkInProcess(['account', 'reset-2fa', email], env);
    expect(reset.stderr).toBe('');
    expect(reset.status).toBe(0);
    expect(reset.stdout).toBe(`Two-factor sign-in turned off for ${email}\n`);
    expect((await signIn(email)).headers.get('location')).toBe('/dashboard');

    const again = await shortlinkInProcess(['account', 'reset-2fa', email], env);
    expect(again.stdout).toMatch(/was not on/);
    const unknown = await shortlinkInProcess(['account', 'reset-2fa', 'nobody@example.test'], env);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/No account for nobody@example.test/);
  });
});
