// Password-protected links and device targets as people use them: Chromium (Debian's, through
// playwright-core) opens a protected short link and types its password, by mouse, by keyboard and
// with script off; the owner sets and removes the password and the device targets on the link's
// page. axe-core checks the password page and the link page at desktop and phone sizes, and the
// run leaves screenshots in .cache/screenshots/ (password-*.png).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { PrismaService } from '../src/database/prisma.service.js';
import { LinksService } from '../src/links/links.service.js';
import { launchChromium } from './support/browser/chromium.js';
import { newPersonPage, SIZES } from './support/browser/pages.js';
import { createAccountWithToken } from './support/factories.js';
import { focusedControl, tabThrough, violationsOnPages, walkedCleanly } from './support/browser/page-checks.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { newEmail, PASSWORD as ACCOUNT_PASSWORD, signUpInPage } from './support/people.js';

const LINK_PASSWORD = 'open sesame';

describe('Password-protected links in a browser', () => {
  let testApp: TestApp;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  /** Where the links go: a site of the spec's own (the machine has no internet). */
  let targetSite: Server;
  let TARGET: string;

  /** A fresh browser profile on the test app: a person of their own, from an address of their own. */
  const newPage = (options?: BrowserContextOptions) => newPersonPage(browser, testApp.baseUrl, contexts, options);

  /** A link of a new account, protected by LINK_PASSWORD; its code. */
  async function protectedLink(): Promise<string> {
    const owner = await createAccountWithToken(testApp);
    const link = await testApp.app.get(LinksService).create(owner.accountId, { url: TARGET, password: LINK_PASSWORD });
    return link.code;
  }

  beforeAll(async () => {
    targetSite = createServer((request, response) => {
      // Another site's page with a form that posts a guess to a short link (`?code=`), as a
      // page trying to make its visitors' browsers guess, or lock them out, would.
      const url = new URL(request.url ?? '/', 'http://target.invalid');
      if (url.pathname === '/cross-site') {
        const action = `${testApp.baseUrl}/${encodeURIComponent(url.searchParams.get('code') ?? '')}`;
        response
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<!doctype html><title>Win a prize</title><form method="post" action="${action}">` +
              '<input type="hidden" name="password" value="guess"><button>Claim your prize</button></form>',
          );
        return;
      }
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>Target</title><h1>The target</h1>');
    });
    await new Promise<void>((resolve) => targetSite.listen(0, '127.0.0.1', resolve));
    TARGET = `http://127.0.0.1:${(targetSite.address() as AddressInfo).port}/landing`;
    testApp = await startTestApp({ RATE_LIMIT_ANONYMOUS: '1000000', RATE_LIMIT_TOKEN: '1000000', TRUST_PROXY: 'true' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await testApp?.close();
    await new Promise((resolve) => targetSite?.close(resolve));
  });

  describe('a visitor', () => {
    it('is asked for the password, told when it is wrong, and taken to the target when it is right', async () => {
      const code = await protectedLink();
      const page = await newPage();

      await page.goto(`/${code}`);
      await expect(page.getByRole('heading', { name: 'This link is protected' }).isVisible()).resolves.toBe(true);
      await expect(page.title()).resolves.toBe('Password needed · shortlink');
      // A visitor of someone's link gets no account navigation.
      await expect(page.getByRole('navigation', { name: 'Main' }).count()).resolves.toBe(0);

      await page.getByLabel('Password').fill('open sesamE');
      await page.getByRole('button', { name: 'Continue' }).click();
      await expect(page.getByText('Wrong password. Check it and try again.').isVisible()).resolves.toBe(true);
      await expect(page.getByLabel('Password').getAttribute('aria-invalid')).resolves.toBe('true');
      // The field has the focus again, empty, for the next try.
      await expect(
        page
          .getByLabel('Password')
          .evaluate(
            (e) => e === (e as unknown as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement,
          ),
      ).resolves.toBe(true);
      await expect(page.getByLabel('Password').inputValue()).resolves.toBe('');

      await page.getByLabel('Password').fill(LINK_PASSWORD);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL(TARGET);
      await expect(page.getByRole('heading', { name: 'The target' }).isVisible()).resolves.toBe(true);
    });

    it('gets there by keyboard alone: every control reached by Tab with a focus ring; type, Enter', async () => {
      const code = await protectedLink();
      const page = await newPage();
      expect(await tabThrough(page, `/${code}`)).toEqual(walkedCleanly(`/${code}`));

      await page.goto(`/${code}`);
      let focused = '';
      for (let step = 0; step < 8 && focused !== 'input "password"'; step++) {
        await page.keyboard.press('Tab');
        focused = (await focusedControl(page))?.name ?? '';
      }
      expect(focused).toBe('input "password"');
      await page.keyboard.type(LINK_PASSWORD);
      await page.keyboard.press('Enter');
      await page.waitForURL(TARGET);
    });

    it('gets there with JavaScript turned off', async () => {
      const code = await protectedLink();
      const page = await newPage({ javaScriptEnabled: false });

      await page.goto(`/${code}`);
      await page.getByLabel('Password').fill('wrong one');
      await page.getByRole('button', { name: 'Continue' }).click();
      await expect(page.getByText('Wrong password.').isVisible()).resolves.toBe(true);
      await page.getByLabel('Password').fill(LINK_PASSWORD);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL(TARGET);
    });

    it('is not made to guess by another site’s form: refused, uncounted, and the link still opens', async () => {
      const code = await protectedLink();
      const page = await newPage({ javaScriptEnabled: false });
      const crossSite = `${TARGET.replace('/landing', '/cross-site')}?code=${code}`;

      // Fifteen posts from the other site's page: more than the 10 wrong tries an address gets.
      for (let i = 0; i < 15; i++) {
        await page.goto(crossSite);
        await page.getByRole('button', { name: 'Claim your prize' }).click();
        await page.waitForLoadState();
        await expect(page.getByRole('alert').textContent()).resolves.toBe(
          'This form has expired or was not sent from this page. Enter the password again.',
        );
      }

      // The visitor is not locked out: the page's own form takes the right password.
      await page.getByLabel('Password').fill(LINK_PASSWORD);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL(TARGET);
    });

    it('is told to wait after 10 wrong passwords', async () => {
      const code = await protectedLink();
      const page = await newPage();
      await page.goto(`/${code}`);

      for (let i = 0; i < 11; i++) {
        await page.getByLabel('Password').fill(`guess ${i}`);
        await page.getByRole('button', { name: 'Continue' }).click();
        await page.waitForLoadState();
      }

      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        'Too many wrong passwords. Try again in 15 minutes.',
      );
    });
  });

  describe("the owner, on the link's page", () => {
    async function signUpWithLink(page: Page): Promise<{ accountId: string; code: string }> {
      const email = await signUpInPage(page, newEmail('p'), ACCOUNT_PASSWORD);
      const account = await testApp.app.get(PrismaService).account.findUniqueOrThrow({ where: { email } });
      const link = await testApp.app.get(LinksService).create(account.id, { url: TARGET });
      return { accountId: account.id, code: link.code };
    }

    const linkOf = (accountId: string, code: string) => testApp.app.get(LinksService).get(accountId, code);

    it('sets, changes and removes the password, and is told when it is too short', async () => {
      const page = await newPage();
      const { accountId, code } = await signUpWithLink(page);
      await page.goto(`/dashboard/links/${code}`);

      // Seven characters: enough before issue 54, not for a new password now.
      await page.getByRole('textbox', { name: 'Password', exact: true }).fill('seven77');
      await page.getByRole('button', { name: 'Set password' }).click();
      await expect(page.getByText('The password must be at least 8 characters long.').isVisible()).resolves.toBe(true);
      expect((await linkOf(accountId, code)).password_protected).toBe(false);

      await page.getByRole('textbox', { name: 'Password', exact: true }).fill(LINK_PASSWORD);
      await page.getByRole('button', { name: 'Set password' }).click();
      await page.waitForURL(`**/dashboard/links/${code}?password=set`);
      await expect(page.getByText('Password set: people must enter it').isVisible()).resolves.toBe(true);
      expect((await linkOf(accountId, code)).password_protected).toBe(true);

      // The links list marks it.
      await page.goto('/dashboard');
      await expect(page.locator('.link-row .badge', { hasText: 'password' }).count()).resolves.toBe(1);

      await page.goto(`/dashboard/links/${code}`);
      await page.getByRole('button', { name: 'Remove password' }).click();
      await page.waitForURL(`**/dashboard/links/${code}?password=removed`);
      await expect(page.getByText('Password removed').isVisible()).resolves.toBe(true);
      expect((await linkOf(accountId, code)).password_protected).toBe(false);
    });

    it('sets and clears the device targets, and is told when one is no web address', async () => {
      const page = await newPage({ javaScriptEnabled: false });
      const { accountId, code } = await signUpWithLink(page);
      await page.goto(`/dashboard/links/${code}`);

      await page.getByLabel('iPhone and iPad URL').fill('javascript:alert(1)');
      await page.getByRole('button', { name: 'Save' }).click();
      await expect(
        page.getByText('The iPhone and iPad URL must be an absolute http:// or https:// URL.').isVisible(),
      ).resolves.toBe(true);
      expect((await linkOf(accountId, code)).ios_url).toBeNull();

      await page.getByLabel('iPhone and iPad URL').fill('https://apps.apple.com/app/id1');
      await page.getByLabel('Android URL').fill('https://play.google.com/store/apps/details?id=x');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(`**/dashboard/links/${code}?saved=1`);
      expect(await linkOf(accountId, code)).toMatchObject({
        ios_url: 'https://apps.apple.com/app/id1',
        android_url: 'https://play.google.com/store/apps/details?id=x',
      });

      await page.getByLabel('iPhone and iPad URL').fill('');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(`**/dashboard/links/${code}?saved=1`);
      expect(await linkOf(accountId, code)).toMatchObject({
        ios_url: null,
        android_url: 'https://play.google.com/store/apps/details?id=x',
      });
    });
  });

  describe.each(SIZES)('the pages at %s size', (size, viewport) => {
    it('have no serious or critical axe-core violations, and leave screenshots', async () => {
      // The CSP (rightly) refuses inline script; axe is injected as one, so only this context bypasses it.
      const page = await newPage({ viewport, bypassCSP: true });
      const { found, check } = violationsOnPages(page, size);

      const code = await protectedLink();
      await page.goto(`/${code}`);
      await check('password-form');
      await page.getByLabel('Password').fill('wrong one');
      await page.getByRole('button', { name: 'Continue' }).click();
      await check('password-wrong');

      const owner = await createAccountWithToken(testApp);
      const link = await testApp.app.get(LinksService).create(owner.accountId, {
        url: TARGET,
        password: LINK_PASSWORD,
        ios_url: 'https://apps.apple.com/app/id1',
        android_url: 'https://play.google.com/store/apps/details?id=com.example.app',
      });
      const email = newEmail('a');
      await page.goto('/signup');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(ACCOUNT_PASSWORD);
      await page.getByRole('button', { name: 'Sign up' }).click();
      await page.waitForURL('**/dashboard');
      // The link moves to the signed-up account, so its page can be shown.
      const account = await testApp.app.get(PrismaService).account.findUniqueOrThrow({ where: { email } });
      await testApp.app.get(PrismaService).link.update({ where: { code: link.code }, data: { accountId: account.id } });
      await page.goto(`/dashboard/links/${link.code}`);
      await check('password-link');
      await page.goto('/dashboard');
      await check('password-links');

      expect(found).toEqual({ 'password-form': [], 'password-wrong': [], 'password-link': [], 'password-links': [] });
    });
  });
});
