import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AccountsService } from '../src/accounts/accounts.service.js';
import { MAX_PASSKEYS } from '../src/auth/sign-in/passkeys.service.js';
import { PrismaService } from '../src/database/prisma.service.js';
import { launchChromium } from './support/browser/chromium.js';
import { newClient } from './support/factories.js';
import { Browser as FormBrowser } from './support/browser/form-browser.js';
import { freePort } from './support/processes/free-port.js';
import { PROJECT_ROOT } from './support/processes/run-source.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { newEmail, PASSWORD, signUpInPage } from './support/people.js';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SCREENSHOTS = join(PROJECT_ROOT, '.cache', 'screenshots');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
}

/**
 * Passkeys in Chromium with the DevTools protocol's virtual authenticator (a platform
 * authenticator with discoverable credentials and user verification). WebAuthn needs a secure
 * context and a domain as relying party, so the app is reached at http://localhost:PORT and
 * that is its SHORT_BASE_URL.
 */
describe('Passkeys in a browser', () => {
  let browser: Browser;
  let testApp: TestApp;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    const port = await freePort();
    testApp = await startTestApp({
      PORT: String(port),
      SHORT_BASE_URL: `http://localhost:${port}`,
      TRUST_PROXY: 'true',
    });
    browser = await launchChromium();
    mkdirSync(SCREENSHOTS, { recursive: true });
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await testApp?.close();
  });

  /** A page of a person of their own, with a virtual passkey authenticator. */
  async function newPage(viewport = { width: 1280, height: 800 }): Promise<Page> {
    const context = await browser.newContext({
      baseURL: testApp.config.shortBaseUrl,
      viewport,
      extraHTTPHeaders: newClient(),
      bypassCSP: true,
    });
    contexts.push(context);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    return page;
  }

  async function axe(page: Page, name: string): Promise<string[]> {
    await page.addScriptTag({ content: AXE_SOURCE });
    const violations = await page.evaluate(async () => {
      const run = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
      return (await run.run()).violations;
    });
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
  }

  async function addPasskey(page: Page, name: string): Promise<void> {
    await page.goto('/account');
    await page.getByLabel('Name').fill(name);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.waitForURL('**/account?passkey=added');
  }

  it('adds a passkey on the account page, then signs in with it alone (no password, no code)', async () => {
    const page = await newPage();
    await signUpInPage(page);
    await addPasskey(page, 'Laptop');
    expect(await page.getByText('Passkey added').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Remove passkey Laptop' }).isVisible()).toBe(true);
    expect(await axe(page, 'account-passkey-desktop')).toEqual([]);

    await page.getByRole('button', { name: 'Sign out' }).first().click();
    await page.waitForURL('**/login');
    expect(await axe(page, 'login-passkey-desktop')).toEqual([]);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL('**/dashboard');
    expect(await page.getByRole('heading', { name: 'Your links' }).isVisible()).toBe(true);
  });

  it('is axe-clean at phone width, and the passkey can be removed with the keyboard', async () => {
    const page = await newPage({ width: 390, height: 844 });
    await signUpInPage(page);
    await addPasskey(page, 'Phone');
    expect(await axe(page, 'account-passkey-phone')).toEqual([]);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Remove passkey Phone' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL('**/account?passkey=removed');
    expect(await page.getByText('No passkeys yet').isVisible()).toBe(true);
  });

  it('without JavaScript, says that passkeys need it and shows no passkey buttons', async () => {
    const context = await browser.newContext({
      baseURL: testApp.config.shortBaseUrl,
      javaScriptEnabled: false,
      extraHTTPHeaders: newClient(),
    });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto('/login');
    expect(await page.getByRole('button', { name: 'Sign in with a passkey' }).count()).toBe(0);
    await signUpInPage(page);
    await page.goto('/account');
    expect(await page.getByText('Adding a passkey needs JavaScript').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Add a passkey' }).count()).toBe(0);
  });

  /**
   * What the browser posts to sign in with its passkey, signed over a challenge the test
   * chooses: the page's request for options is answered with `options`, and its final post
   * is caught instead of sent.
   */
  async function signedAnswer(page: Page, options: string): Promise<string> {
    await page.goto('/login');
    await page.route('**/login/passkey/options', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: options }),
    );
    const posted = new Promise<string>((resolve) => {
      void page.route('**/login/passkey', async (route) => {
        resolve(new URLSearchParams(route.request().postData() ?? '').get('response') ?? '');
        await route.abort();
      });
    });
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    const status = page.locator('#passkey-sign-in-status');
    const refused = status
      .filter({ hasText: /./ })
      .waitFor({ timeout: 15_000 })
      .then(
        async () => ({ refused: await status.innerText() }),
        () => ({ refused: 'no answer within 15 s' }),
      );
    const outcome = await Promise.race([posted.then((response) => ({ response })), refused]);
    if ('refused' in outcome) throw new Error(`The browser did not sign: ${outcome.refused}`);
    return outcome.response;
  }

  /** A challenge from `app` as its sign-in page gets one: the options and the cookie holding the step. */
  async function challengeFrom(app: TestApp): Promise<{ options: string; cookie: string; csrf: string }> {
    const page = await app.request('/login', { headers: newClient() });
    const jar = page.headers.getSetCookie().map((line) => line.split(';')[0]);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1];
    const answer = await app.request('/login/passkey/options', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.join('; '), ...newClient() },
      body: new URLSearchParams({ _csrf: csrf }).toString(),
    });
    expect(answer.status).toBe(200);
    jar.push(...answer.headers.getSetCookie().map((line) => line.split(';')[0]));
    return { options: await answer.text(), cookie: jar.join('; '), csrf };
  }

  function postAnswer(app: TestApp, challenge: { cookie: string; csrf: string }, response: string) {
    return app.request('/login/passkey', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: challenge.cookie, ...newClient() },
      body: new URLSearchParams({ _csrf: challenge.csrf, response }).toString(),
    });
  }

  it('refuses an answer replayed, signed for another challenge, or sent to another origin or relying party', async () => {
    const page = await newPage();
    await signUpInPage(page);
    await addPasskey(page, 'Laptop');
    await page.getByRole('button', { name: 'Sign out' }).first().click();
    await page.waitForURL('**/login');

    // Signed over a challenge of this app: accepted once, then refused.
    const own = await challengeFrom(testApp);
    const answer = await signedAnswer(page, own.options);
    const first = await postAnswer(testApp, own, answer);
    expect(first.status).toBe(303);
    const replayed = await postAnswer(testApp, own, answer);
    expect(replayed.status).toBe(400);
    expect(await replayed.text()).toContain('expired');
    // Against a newer challenge of the same app: refused.
    const newer = await challengeFrom(testApp);
    const mismatched = await postAnswer(testApp, newer, answer);
    expect(mismatched.status).toBe(401);
    expect(replayed.headers.getSetCookie().some((line) => line.includes('shortlink_session='))).toBe(false);

    // Apps on the same database at another origin (same host, other port) and another relying
    // party: each gives the challenge, the browser signs it on this origin, and each refuses.
    const port = await freePort();
    for (const base of [`http://localhost:${port}`, 'https://elsewhere.test']) {
      const other = await startTestApp(
        { PORT: String(base.includes('localhost') ? port : 0), SHORT_BASE_URL: base },
        testApp.database,
      );
      try {
        const theirs = await challengeFrom(other);
        // The browser signs only for this page's relying party: their challenge, our rpId.
        const options = { ...(JSON.parse(theirs.options) as object), rpId: 'localhost' };
        const signedHere = await signedAnswer(page, JSON.stringify(options));
        const refused = await postAnswer(other, theirs, signedHere);
        expect(refused.status).toBe(401);
        expect(await refused.text()).toMatch(
          /That passkey did not sign you in\. The passkey could not be checked: .*origin/,
        );
      } finally {
        await other.close();
      }
    }
  });

  it('refuses a passkey posted without its challenge (400), and removing another account’s passkey (404)', async () => {
    const someone = new FormBrowser(testApp);
    expect((await someone.post('/signup', { email: newEmail(), password: PASSWORD })).status).toBe(303);

    const added = await someone.post('/account/passkeys', { name: 'Forged', response: '{}' }, undefined, '/account');
    expect(added.status).toBe(400);
    expect(await added.text()).toContain('Adding a passkey needs JavaScript');

    // A passkey that exists, of the accounts the browser specs above made.
    const theirs = await testApp.app.get(PrismaService).passkey.findFirst();
    expect(theirs).not.toBeNull();
    const removed = await someone.post(
      `/account/passkeys/${encodeURIComponent(theirs!.id)}/delete`,
      {},
      undefined,
      '/account',
    );
    expect(removed.status).toBe(404);
    await expect(testApp.app.get(PrismaService).passkey.count({ where: { id: theirs!.id } })).resolves.toBe(1);
  });

  it(`refuses a passkey beyond ${MAX_PASSKEYS} per account, before any challenge is made`, async () => {
    const owner = new FormBrowser(testApp);
    const email = newEmail();
    expect((await owner.post('/signup', { email, password: PASSWORD })).status).toBe(303);
    const account = await testApp.app.get(AccountsService).findByEmail(email);
    const prisma = testApp.app.get(PrismaService);
    for (let n = 0; n < MAX_PASSKEYS; n++) {
      await prisma.passkey.create({
        data: {
          id: `cap-${randomBytes(8).toString('hex')}`,
          accountId: account!.id,
          name: `Key ${n}`,
          publicKey: 'AA',
          counter: 0,
          transports: '',
        },
      });
    }

    const options = await owner.post('/account/passkeys/options', {}, undefined, '/account');
    expect(options.status).toBe(400);
    expect(await options.json()).toEqual({ message: `An account can have at most ${MAX_PASSKEYS} passkeys.` });
    await expect(prisma.signInChallenge.count({ where: { accountId: account!.id } })).resolves.toBe(0);
    await expect(prisma.passkey.count({ where: { accountId: account!.id } })).resolves.toBe(MAX_PASSKEYS);
  });

  it('answers garbage with a clear 4xx, never a 500', async () => {
    for (const response of [
      '',
      'not json',
      '{}',
      '{"id": 5}',
      JSON.stringify({ id: 'x'.repeat(5000) }),
      '[]',
      'null',
    ]) {
      const challenge = await challengeFrom(testApp);
      const answer = await postAnswer(testApp, challenge, response);
      expect([400, 401]).toContain(answer.status);
    }
  });
});
