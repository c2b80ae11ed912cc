import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AccountsService } from '../src/accounts/accounts.service.js';
import { PrismaService } from '../src/database/prisma.service.js';
import { launchChromium } from './support/browser/chromium.js';
import { newClient } from './support/factories.js';
import { freePort } from './support/processes/free-port.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { newEmail } from './support/people.js';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const CLIENT = { client_id: 'shortlink', client_secret: 'a-test-secret-that-is-long-enough-0123456789' };

/** People the test provider knows: login name → email and whether it is verified. */
const people = new Map<string, { email: string; verified: boolean }>();

/**
 * A real OpenID Connect provider (oidc-provider), with its development sign-in pages.
 * `forgedJwks`: it signs ID tokens with a key of its own but publishes another one, with the
 * same key id, at its `jwks_uri`: ID tokens that no published key vouches for, as a token
 * endpoint taken over (or a look-alike of it) would send.
 */
async function startProvider(
  redirectUris: string[],
  options: { forgedJwks?: boolean } = {},
): Promise<{ issuer: string; close(): Promise<void> }> {
  // Bound before the provider exists (its issuer names the port), so no other server can take
  // the port between choosing and binding it.
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Its start-up warnings (development keys, in-memory store, Node.js 20) are about running it
  // in production, which a test provider does not.
  const warn = console.warn;
  console.warn = () => undefined;
  const { default: Provider } = await import('oidc-provider');
  const provider = new Provider(issuer, {
    // Lifetimes of its own records, set so it does not log a notice for each default it uses.
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, AuthorizationCode: 60, IdToken: 600 },
    clients: [
      { ...CLIENT, redirect_uris: redirectUris, response_types: ['code'], grant_types: ['authorization_code'] },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    pkce: { required: () => true },
    cookies: { keys: ['test-cookie-key'] },
    ...(options.forgedJwks ? { jwks: { keys: [rsaJwk('signing-key', 'private')] } } : {}),
    findAccount: (_context, sub) => {
      const person = people.get(sub);
      return person
        ? { accountId: sub, claims: () => ({ sub, email: person.email, email_verified: person.verified }) }
        : undefined;
    },
  });
  console.warn = warn;
  if (options.forgedJwks) {
    const published = rsaJwk('signing-key', 'public');
    provider.use(async (context, next) => {
      await next();
      if (context.path === '/jwks') context.body = { keys: [published] };
    });
  }
  server.on('request', provider.callback());
  return { issuer, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** A new RSA key as a JWK for RS256 signatures (the private half, or the public one). */
function rsaJwk(kid: string, half: 'private' | 'public'): Record<string, unknown> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = (half === 'private' ? privateKey : publicKey).export({ format: 'jwk' });
  return { ...jwk, kid, use: 'sig', alg: 'RS256' };
}

/** The whole redirect dance in Chromium, as a person does it; `before` may change requests on the way. */
async function signInThroughProvider(
  page: Page,
  login: string,
  options: { next?: string; before?: (page: Page) => Promise<unknown> } = {},
): Promise<void> {
  await page.goto(`/login${options.next ? `?next=${encodeURIComponent(options.next)}` : ''}`);
  await options.before?.(page);
  await page.getByRole('link', { name: 'Sign in with Test IdP' }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('anything');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

/**
 * Playwright routes only the first request of a redirect chain, so the way to the provider is
 * changed where it starts: this app's `/login/oidc` is fetched by hand and its `Location` (the
 * provider's authorization URL) handed to `rewrite` before the browser follows it. Cookies set
 * on the way land in the browser's jar (route.fetch shares it).
 */
async function rewriteAuthorization(page: Page, rewrite: (url: URL) => URL): Promise<void> {
  await page.route(/\/login\/oidc(\?|$)/, async (route) => {
    const response = await route.fetch({ maxRedirects: 0 });
    const location = rewrite(new URL(response.headers().location));
    await route.fulfill({ status: 303, headers: { location: location.href } });
  });
}

/**
 * Catches the provider's final redirect back to this app instead of following it: the consent
 * form's post (a chain's first request) is answered by hand up to the callback URL.
 */
async function catchCallback(page: Page): Promise<{ callback: Promise<URL> }> {
  let caught!: (url: URL) => void;
  const callback = new Promise<URL>((resolve) => (caught = resolve));
  await page.route(/\/interaction\/[^/?]+$/, async (route) => {
    if (!route.request().postData()?.includes('prompt=consent')) return route.continue();
    let response = await route.fetch({ maxRedirects: 0 });
    for (let hop = 0; hop < 5 && !response.headers().location?.includes('/login/oidc/callback'); hop++) {
      response = await page.context().request.get(response.headers().location, { maxRedirects: 0 });
    }
    caught(new URL(response.headers().location));
    await route.fulfill({ status: 200, contentType: 'text/plain', body: 'caught' });
  });
  return { callback };
}

describe('Single sign-on (OpenID Connect)', () => {
  let browser: Browser;
  let testApp: TestApp;
  let provider: { issuer: string; close(): Promise<void> };
  let otherProvider: { issuer: string; close(): Promise<void> };
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    provider = await startProvider([`${base}/login/oidc/callback`]);
    otherProvider = await startProvider([`${base}/login/oidc/callback`]);
    testApp = await startTestApp({
      PORT: String(port),
      SHORT_BASE_URL: base,
      TRUST_PROXY: 'true',
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: CLIENT.client_id,
      OIDC_CLIENT_SECRET: CLIENT.client_secret,
      OIDC_NAME: 'Test IdP',
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await testApp?.close();
    await provider?.close();
    await otherProvider?.close();
  });

  async function newPage(viewport = { width: 1280, height: 800 }): Promise<Page> {
    const context = await browser.newContext({
      baseURL: testApp.baseUrl,
      viewport,
      extraHTTPHeaders: newClient(),
      bypassCSP: true,
    });
    contexts.push(context);
    const page = await context.newPage();
    // The provider's development pages load a web font from the internet: not here.
    await page.route(/fonts\.googleapis\.com/, (route) => route.abort());
    return page;
  }

  function person(verified = true): { login: string; email: string } {
    const login = `person-${randomBytes(4).toString('hex')}`;
    const email = newEmail('sso');
    people.set(login, { email, verified });
    return { login, email };
  }

  it('signs in through the provider with PKCE, state and nonce, making the account, back to next', async () => {
    const page = await newPage({ width: 390, height: 844 });
    await page.goto('/login');
    await page.addScriptTag({ content: AXE_SOURCE });
    const violations = await page.evaluate(async () => {
      const axe = (
        globalThis as unknown as { axe: { run(): Promise<{ violations: { impact: string | null; id: string }[] }> } }
      ).axe;
      return (await axe.run()).violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => v.id);
    });
    expect(violations).toEqual([]);

    const { login, email } = person();
    const sent: URL[] = [];
    await signInThroughProvider(page, login, {
      next: '/dashboard/tokens',
      before: (p) => rewriteAuthorization(p, (url) => (sent.push(url), url)),
    });
    await page.waitForURL('**/dashboard/tokens');

    const query = sent[0].searchParams;
    expect(query.get('code_challenge_method')).toBe('S256');
    expect(query.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(query.get('state')).toMatch(/^[\w-]{20,}$/);
    expect(query.get('nonce')).toMatch(/^[\w-]{20,}$/);
    expect(await testApp.app.get(AccountsService).findByEmail(email)).not.toBeNull();
  });

  it('signs in to the existing account with that verified email, with a new session', async () => {
    const { login, email } = person();
    const made = await testApp.app.get(AccountsService).create(email);
    const page = await newPage();
    await signInThroughProvider(page, login);
    await page.waitForURL('**/dashboard');
    await page.goto('/account');
    expect(await page.getByText(`Signed in as ${email}`).isVisible()).toBe(true);
    expect((await testApp.app.get(AccountsService).findByEmail(email))!.id).toBe(made.id);
  });

  it('refuses an email the provider has not verified, making no account', async () => {
    const { login, email } = person(false);
    const page = await newPage();
    await signInThroughProvider(page, login);
    await page.waitForURL('**/login/oidc/callback**');
    expect(await page.getByRole('alert').innerText()).toContain(`has not verified the address ${email}`);
    expect(await testApp.app.get(AccountsService).findByEmail(email)).toBeNull();
  });

  it('refuses a new email while sign-up is closed (403, no account), and still signs in an existing one', async () => {
    const config = testApp.config as { signup: string };
    config.signup = 'closed';
    try {
      const stranger = person();
      const page = await newPage();
      const answer = page.waitForResponse(/\/login\/oidc\/callback/);
      await signInThroughProvider(page, stranger.login);
      expect((await answer).status()).toBe(403);
      expect(await page.getByRole('alert').innerText()).toContain('sign-up is closed');
      expect(await testApp.app.get(AccountsService).findByEmail(stranger.email)).toBeNull();

      const member = person();
      await testApp.app.get(AccountsService).create(member.email);
      const memberPage = await newPage();
      await signInThroughProvider(memberPage, member.login);
      await memberPage.waitForURL('**/dashboard');
    } finally {
      config.signup = 'open';
    }
  });

  it('refuses a callback with a wrong state, then the right one once it was spent', async () => {
    const { login } = person();
    const page = await newPage();
    const caught = await catchCallback(page);
    await signInThroughProvider(page, login);
    const callback = await caught.callback;
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const wrong = new URL(callback);
    wrong.searchParams.set('state', 'forged-state-value');

    const forged = await testApp.request(`${wrong.pathname}${wrong.search}`, { headers: { cookie, ...newClient() } });
    expect(forged.status).toBe(401);
    expect(await forged.text()).toMatch(/did not sign you in/);
    expect(forged.headers.getSetCookie().some((line) => line.startsWith('shortlink_session='))).toBe(false);
    const late = await testApp.request(`${callback.pathname}${callback.search}`, {
      headers: { cookie, ...newClient() },
    });
    expect(late.status).toBe(400);
  });

  it('refuses an ID token without the nonce it asked for', async () => {
    const { login, email } = person();
    const page = await newPage();
    await signInThroughProvider(page, login, {
      before: (p) =>
        rewriteAuthorization(p, (url) => {
          url.searchParams.delete('nonce');
          return url;
        }),
    });
    await page.waitForURL('**/login/oidc/callback**');
    expect(await page.getByRole('alert').innerText()).toMatch(/did not sign you in: .*nonce/i);
    expect(await testApp.app.get(AccountsService).findByEmail(email)).toBeNull();
  });

  it('refuses a code and ID token from another issuer', async () => {
    const { login, email } = person();
    const page = await newPage();
    await signInThroughProvider(page, login, {
      // The browser is sent to another provider (same client id) instead of the configured one.
      before: (p) => rewriteAuthorization(p, (url) => new URL(`${otherProvider.issuer}${url.pathname}${url.search}`)),
    });
    await page.waitForURL('**/login/oidc/callback**');
    expect(await page.getByRole('alert').innerText()).toMatch(/did not sign you in: .*(iss|issuer)/i);
    expect(await testApp.app.get(AccountsService).findByEmail(email)).toBeNull();
  });

  /** How many accounts there are: a refused sign-in makes none. */
  const accountCount = () => testApp.app.get(PrismaService).account.count();

  it('refuses a verified email with a NUL in it (a 4xx page, no account, never a 500)', async () => {
    const login = `person-${randomBytes(4).toString('hex')}`;
    people.set(login, { email: `nul\u0000${randomBytes(4).toString('hex')}@example.test`, verified: true });
    const before = await accountCount();
    const page = await newPage();
    const answer = page.waitForResponse(/\/login\/oidc\/callback/);
    await signInThroughProvider(page, login);
    expect((await answer).status()).toBe(403);
    expect(await page.getByRole('alert').innerText()).toMatch(
      /cannot be used for an account here.*invisible or control character/,
    );
    expect(await accountCount()).toBe(before);
  });

  it('refuses a verified email of 312 characters (no account)', async () => {
    const login = `person-${randomBytes(4).toString('hex')}`;
    const email = `${'a'.repeat(64)}.${randomBytes(4).toString('hex')}@${'b'.repeat(225)}.example.test`;
    expect(email.length).toBe(312);
    people.set(login, { email, verified: true });
    const before = await accountCount();
    const page = await newPage();
    const answer = page.waitForResponse(/\/login\/oidc\/callback/);
    await signInThroughProvider(page, login);
    expect((await answer).status()).toBe(403);
    expect(await page.getByRole('alert').innerText()).toMatch(/at most 254 characters/);
    expect(await accountCount()).toBe(before);
  });
});

describe('Single sign-on with ID tokens its provider’s published keys do not vouch for', () => {
  let browser: Browser;
  let testApp: TestApp;
  let forger: { issuer: string; close(): Promise<void> };
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    forger = await startProvider([`${base}/login/oidc/callback`], { forgedJwks: true });
    testApp = await startTestApp({
      PORT: String(port),
      SHORT_BASE_URL: base,
      TRUST_PROXY: 'true',
      OIDC_ISSUER: forger.issuer,
      OIDC_CLIENT_ID: CLIENT.client_id,
      OIDC_CLIENT_SECRET: CLIENT.client_secret,
      OIDC_NAME: 'Test IdP',
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await testApp?.close();
    await forger?.close();
  });

  it('refuses the sign-in: the ID token’s signature is checked against the provider’s JWKS', async () => {
    const context = await browser.newContext({
      baseURL: testApp.baseUrl,
      extraHTTPHeaders: newClient(),
      bypassCSP: true,
    });
    contexts.push(context);
    const page = await context.newPage();
    await page.route(/fonts\.googleapis\.com/, (route) => route.abort());
    const login = `person-${randomBytes(4).toString('hex')}`;
    const email = newEmail('sso');
    people.set(login, { email, verified: true });

    const answer = page.waitForResponse(/\/login\/oidc\/callback/);
    await signInThroughProvider(page, login);
    expect((await answer).status()).toBe(401);
    expect(await page.getByRole('alert').innerText()).toMatch(/did not sign you in: .*signature/i);
    expect(await testApp.app.get(AccountsService).findByEmail(email)).toBeNull();
    expect((await context.cookies()).map((cookie) => cookie.name)).not.toContain('shortlink_session');
  });
});

describe('Single sign-on not set up, or its provider down', () => {
  it('has no button and answers 404 without OIDC_ISSUER', async () => {
    const testApp = await startTestApp();
    try {
      expect(await (await testApp.request('/login')).text()).not.toContain('/login/oidc');
      for (const path of ['/login/oidc', '/login/oidc/callback?code=x&state=y']) {
        const answer = await testApp.request(path);
        expect(answer.status).toBe(404);
        expect(await answer.text()).toContain('Single sign-on is not set up on this server.');
      }
    } finally {
      await testApp.close();
    }
  });

  it('answers 503 with a page, not a 500, when the provider cannot be reached', async () => {
    const testApp = await startTestApp({
      OIDC_ISSUER: `http://127.0.0.1:${await freePort()}`,
      OIDC_CLIENT_ID: 'x',
      OIDC_CLIENT_SECRET: 'y',
    });
    try {
      const answer = await testApp.request('/login/oidc');
      expect(answer.status).toBe(503);
      expect(await answer.text()).toContain(
        'single sign-on cannot be reached right now. Sign in with your password, or try again later.',
      );
    } finally {
      await testApp.close();
    }
  });
});
