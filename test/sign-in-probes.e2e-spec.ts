import { Tokens } from '@fastify/csrf';
import { AccountsService } from '../src/accounts/accounts.service.js';
import { LinksService } from '../src/links/links.service.js';
import { newClient } from './support/factories.js';
import { Browser } from './support/browser/form-browser.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { newEmail, PASSWORD, signUpWithForms } from './support/people.js';

/**
 * The holes a probe of the dashboard found (issue 29), each tried as the attacker did. Every
 * spec here failed before the fix. The app trusts X-Forwarded-For, so each Browser is a client
 * address of its own unless it is given one.
 */
const NEW_PASSWORD = 'vortex lantern 93 quilt';

describe('Sign-in probes', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp({ TRUST_PROXY: 'true', RATE_LIMIT_ANONYMOUS: '1000000' });
  });
  afterAll(() => testApp.close());

  it('1. counts guesses of the current password on the account page against the sign-in limits', async () => {
    const email = newEmail();
    // The attacker sits at a session left open, from addresses of their choosing.
    const openSession = await signUpWithForms(testApp, email);
    const csrf = await openSession.csrfFrom('/account');

    for (let guess = 0; guess < 10; guess++) {
      openSession.moveTo(newClient());
      const wrong = await openSession.post(
        '/account/password',
        { current_password: `guess number ${guess}`, new_password: NEW_PASSWORD },
        csrf,
      );
      expect(wrong.status).toBe(400);
    }
    openSession.moveTo(newClient());
    const right = await openSession.post(
      '/account/password',
      { current_password: PASSWORD, new_password: NEW_PASSWORD },
      csrf,
    );

    expect(right.status).toBe(429);
    expect(right.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await right.text()).toContain('Too many wrong passwords');
    // Nothing changed: the old password still signs in (from another browser and address).
    expect((await new Browser(testApp).post('/login', { email, password: PASSWORD })).status).toBe(303);
    expect((await new Browser(testApp).post('/login', { email, password: NEW_PASSWORD })).status).toBe(401);
  });

  it('1. a wrong current password also counts against the client address', async () => {
    const client = newClient();
    const browser = await signUpWithForms(testApp, newEmail(), new Browser(testApp, client));
    const csrf = await browser.csrfFrom('/account');
    // The sign-up was the address's first attempt; nine more wrong guesses make ten.
    for (let guess = 0; guess < 9; guess++) {
      const wrong = await browser.post(
        '/account/password',
        { current_password: 'not it at all', new_password: NEW_PASSWORD },
        csrf,
      );
      expect(wrong.status).toBe(400);
    }

    // Another account's sign-in from the same address is now refused too.
    const other = newEmail();
    await signUpWithForms(testApp, other);
    const sameAddress = new Browser(testApp, client);
    expect((await sameAddress.post('/login', { email: other, password: PASSWORD })).status).toBe(429);
  });

  it('2. limits sign-ups per client address, so they reveal registered emails no faster than sign-in', async () => {
    const registered: string[] = [];
    for (let n = 0; n < 11; n++) registered.push((await testApp.app.get(AccountsService).create(newEmail())).email);
    const prober = new Browser(testApp, newClient());
    const csrf = await prober.csrfFrom('/signup');

    for (const email of registered.slice(0, 10)) {
      expect((await prober.post('/signup', { email, password: PASSWORD }, csrf)).status).toBe(409);
    }
    const eleventh = await prober.post('/signup', { email: registered[10], password: PASSWORD }, csrf);

    expect(eleventh.status).toBe(429);
    expect(eleventh.headers.get('retry-after')).toMatch(/^\d+$/);
    const html = await eleventh.text();
    expect(html).toContain('Too many attempts');
    expect(html).not.toContain('already registered');
    // A new email from that address is refused as well, and no account is made.
    const fresh = newEmail();
    expect((await prober.post('/signup', { email: fresh, password: PASSWORD }, csrf)).status).toBe(429);
    expect(await testApp.app.get(AccountsService).findByEmail(fresh)).toBeNull();
  });

  it('3. guesses from anywhere cannot lock the owner out of a browser that signed in before', async () => {
    const email = newEmail();
    await signUpWithForms(testApp, email);
    // The owner's laptop signs in once, and so keeps a device cookie.
    const laptop = new Browser(testApp);
    expect((await laptop.post('/login', { email, password: PASSWORD })).status).toBe(303);
    expect([...laptop.cookies.keys()]).toContain('__Host-shortlink_device');

    // Ten wrong passwords from ten addresses.
    for (let guess = 0; guess < 10; guess++) {
      const attacker = new Browser(testApp);
      expect((await attacker.post('/login', { email, password: `guess ${guess} of ten` })).status).toBe(401);
    }
    // Browsers that never signed in are locked out, even with the right password, and a
    // made-up or stolen-from-another-account device cookie does not help.
    expect((await new Browser(testApp).post('/login', { email, password: PASSWORD })).status).toBe(429);
    const forger = new Browser(testApp);
    forger.cookies.set('__Host-shortlink_device', `${'A'.repeat(22)}.${'B'.repeat(43)}`);
    expect((await forger.post('/login', { email, password: PASSWORD })).status).toBe(429);
    const otherAccount = await signUpWithForms(testApp);
    const borrowed = new Browser(testApp);
    borrowed.cookies.set('__Host-shortlink_device', otherAccount.cookies.get('__Host-shortlink_device')!);
    expect((await borrowed.post('/login', { email, password: PASSWORD })).status).toBe(429);

    // The owner's laptop, signed out and on a new network, signs in.
    expect((await laptop.post('/logout', {}, undefined, '/dashboard')).status).toBe(303);
    const onTheRoad = new Browser(testApp);
    onTheRoad.cookies.set('__Host-shortlink_device', laptop.cookies.get('__Host-shortlink_device')!);
    const owner = await onTheRoad.post('/login', { email, password: PASSWORD });
    expect(owner.status).toBe(303);
    expect(owner.headers.get('location')).toBe('/dashboard');
  });

  it('3. a device cookie has a counter of its own: ten wrong passwords from it lock only it', async () => {
    const email = newEmail();
    const laptop = await signUpWithForms(testApp, email);
    const device = laptop.cookies.get('__Host-shortlink_device')!;
    const fromDevice = () => {
      const browser = new Browser(testApp);
      browser.cookies.set('__Host-shortlink_device', device);
      return browser;
    };

    for (let guess = 0; guess < 10; guess++) {
      expect((await fromDevice().post('/login', { email, password: `wrong ${guess}` })).status).toBe(401);
    }
    expect((await fromDevice().post('/login', { email, password: PASSWORD })).status).toBe(429);
    expect((await new Browser(testApp).post('/login', { email, password: PASSWORD })).status).toBe(303);
  });

  it('3. a new password retires the device cookies issued before it', async () => {
    const email = newEmail();
    const laptop = await signUpWithForms(testApp, email);
    const before = laptop.cookies.get('__Host-shortlink_device')!;
    await testApp.app.get(AccountsService).setPasswordByEmail(email, NEW_PASSWORD);

    await expect(testApp.app.get(AccountsService).trustedDevice(email, before)).resolves.toBeNull();
  });

  it.each([
    ['the most common password', 'password'],
    ['eight spaces', '        '],
    ['the account’s own email', 'EMAIL'],
  ])('4. refuses %s as a new password, at sign-up and on the account page', async (_, chosen) => {
    const email = newEmail();
    const password = chosen === 'EMAIL' ? email : chosen;

    const signup = await new Browser(testApp).post('/signup', { email, password });
    expect(signup.status).toBe(400);
    expect(await signup.text()).toMatch(/id="password-error">[^<]+/);
    expect(await testApp.app.get(AccountsService).findByEmail(email)).toBeNull();

    const browser = await signUpWithForms(testApp, email);
    const change = await browser.post(
      '/account/password',
      { current_password: PASSWORD, new_password: password },
      undefined,
      '/account',
    );
    expect(change.status).toBe(400);
    expect(await change.text()).toMatch(/id="new-error">[^<]+/);
    expect((await new Browser(testApp).post('/login', { email, password: PASSWORD })).status).toBe(303);
  });

  it('5. a next with a control or non-ASCII character leads to the links page, never a 500', async () => {
    const email = newEmail();
    const browser = await signUpWithForms(testApp, email);

    const signedIn = await browser.get('/login?next=/%7F/x');
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/dashboard');

    const visitor = new Browser(testApp);
    const csrf = await visitor.csrfFrom('/login');
    for (const next of ['/dashboard%E2%80%A8', '/caf%C3%A9', '/%00']) {
      const response = await visitor.post(`/login?next=${next}`, { email, password: PASSWORD }, csrf);
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/dashboard');
      expect([...visitor.cookies.keys()]).toContain('__Host-shortlink_session');
    }
  });

  it('6. a planted CSRF cookie with its own token does not pass a signed-in form', async () => {
    const victim = await signUpWithForms(testApp);
    // The attacker's secret and a token for it, planted in the victim's browser (a sibling
    // subdomain or a plain-http answer can set a cookie without the __Host- prefix).
    const tokens = new Tokens({});
    const secret = tokens.secretSync();
    for (const name of ['shortlink_csrf', '__Host-shortlink_csrf']) victim.cookies.set(name, secret);

    const forged = await victim.post('/dashboard', { url: 'https://evil.example/planted' }, tokens.create(secret));

    expect(forged.status).toBe(403);
    const list = await testApp.app.get(LinksService).list((await sessionAccount(victim))!, { limit: 10, offset: 0 });
    expect(list.total).toBe(0);
  });

  it('6. a form shown to one session does not pass in another session of the same account', async () => {
    const email = newEmail();
    const first = await signUpWithForms(testApp, email);
    const csrf = await first.csrfFrom('/dashboard');
    const second = new Browser(testApp);
    expect((await second.post('/login', { email, password: PASSWORD })).status).toBe(303);

    expect((await second.post('/dashboard', { url: 'https://example.com/x' }, csrf)).status).toBe(403);
    // Signing out voids the forms the session was shown.
    expect((await first.post('/logout', {}, csrf)).status).toBe(303);
    expect((await first.post('/login', { email, password: PASSWORD }, csrf)).status).toBe(403);
  });

  it('6. names its cookies with the __Host- prefix over https: Secure, Path=/, no Domain', async () => {
    const browser = new Browser(testApp);
    const response = await browser.post('/signup', { email: newEmail(), password: PASSWORD });

    const lines = response.headers.getSetCookie();
    for (const name of ['__Host-shortlink_session', '__Host-shortlink_device']) {
      const line = lines.find((l) => l.startsWith(`${name}=`));
      expect(line).toMatch(/; Secure/);
      expect(line).toMatch(/; Path=\//);
      expect(line).not.toMatch(/Domain=/i);
    }
    expect([...browser.cookies.keys()]).toContain('__Host-shortlink_csrf');
    expect(lines.some((l) => l.startsWith('shortlink_'))).toBe(false);
  });

  async function sessionAccount(browser: Browser): Promise<string | undefined> {
    const html = await (await browser.get('/account')).text();
    const email = /Signed in as <strong>([^<]+)</.exec(html)?.[1];
    return email ? (await testApp.app.get(AccountsService).findByEmail(email))?.id : undefined;
  }
});

describe('Sign-in cookies on plain http', () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await startTestApp({ SHORT_BASE_URL: 'http://sl.test' });
  });
  afterAll(() => testApp.close());

  it('keep their plain names (browsers refuse __Host- cookies without https)', async () => {
    const browser = new Browser(testApp);
    const response = await browser.post('/signup', { email: newEmail(), password: PASSWORD });

    expect(response.status).toBe(303);
    const names = response.headers.getSetCookie().map((line) => line.split('=', 1)[0]);
    expect(names).toEqual(expect.arrayContaining(['shortlink_session', 'shortlink_device']));
    expect(names.some((name) => name?.startsWith('__Host-'))).toBe(false);
  });
});
