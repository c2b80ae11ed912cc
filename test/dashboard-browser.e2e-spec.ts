// The dashboard as a person uses it: Chromium (Debian's, through playwright-core) signs up,
// makes links and tokens, with script on and off, by mouse and by keyboard; axe-core checks
// every page at desktop and phone sizes, and the run leaves screenshots in .cache/screenshots/.
import { generate } from 'otplib';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { ClickCounter } from '../src/clicks/click-counter.js';
import { PrismaService } from '../src/database/prisma.service.js';
import { sumRollups } from './support/database/click-history.js';
import { launchChromium } from './support/browser/chromium.js';
import { newPersonPage, SIZES } from './support/browser/pages.js';
import { tabThrough, violationsOnPages, walkedCleanly } from './support/browser/page-checks.js';
import { startTestApp, TEST_SHORT_BASE_URL, type TestApp } from './support/test-app.js';
import { newEmail, PASSWORD, signUpInPage } from './support/people.js';

const NEW_PASSWORD = 'a brand new password';

describe('Account dashboard in a browser', () => {
  let testApp: TestApp;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  /** A fresh browser profile on the test app: a person of their own, from an address of their own. */
  const newPage = (options?: BrowserContextOptions) => newPersonPage(browser, testApp.baseUrl, contexts, options);

  /**
   * Opens a short URL in the browser as a visitor coming from `referer`; returns the service's
   * answer (status and Location). The browser cannot follow the redirect to the (offline) target:
   * Playwright routes only the first URL of a redirect chain, so the route answers in its place.
   */
  async function follow(code: string, referer: string): Promise<{ status: number; location?: string }> {
    const page = await newPage();
    let answer: { status: number; location?: string } | undefined;
    await page.route(`**/${code}`, async (route) => {
      const response = await route.fetch({ maxRedirects: 0 });
      answer = { status: response.status(), location: response.headers().location };
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<title>followed</title>' });
    });
    await page.goto(`/${code}`, { referer });
    await testApp.app.get(ClickCounter).flush();
    return answer!;
  }

  /**
   * Four weeks of clicks before today, written as the click flush writes them, so the link page
   * (and its screenshot) shows a chart and referrers as a link in use has them.
   */
  async function seedHistory(code: string): Promise<void> {
    const prisma = testApp.app.get(PrismaService);
    const dayBefore = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
    const hosts = ['news.example', '(direct)', 'social.example', 'blog.example'];
    const days = Array.from({ length: 29 }, (_, i) => ({ day: dayBefore(29 - i), clicks: 4 + ((i * 7) % 11) + i }));
    // About one click in six from bots (link previews, crawlers), as a shared link gets.
    await prisma.linkDailyClicks.createMany({
      data: days.map((day) => ({ code, ...day, bots: Math.floor(day.clicks / 6) })),
    });
    // People's clicks (the day's clicks less its bots), shared among the referring hosts.
    const hostShares = [0.4, 0.3, 0.2, 0.1];
    await prisma.linkDailyReferrer.createMany({
      data: days.flatMap(({ day, clicks }) =>
        hosts.map((host, rank) => ({
          code,
          day,
          host,
          clicks: Math.max(1, Math.round((clicks - Math.floor(clicks / 6)) * hostShares[rank])),
        })),
      ),
    });
    // People's clicks (the day's clicks less its bots) by country, device, browser and system.
    const shares: Array<[string, Array<[string, number]>]> = [
      ['country', [['US', 0.4], ['NL', 0.2], ['DE', 0.15], ['IN', 0.1], ['BR', 0.1], ['ZZ', 0.05]]],
      ['device', [['mobile', 0.6], ['desktop', 0.35], ['tablet', 0.05]]],
      ['browser', [['Chrome', 0.5], ['Safari', 0.3], ['Firefox', 0.1], ['Microsoft Edge', 0.1]]],
      ['os', [['Android', 0.35], ['iOS', 0.3], ['Windows', 0.2], ['macOS', 0.1], ['Linux', 0.05]]],
    ]; // prettier-ignore
    await prisma.linkDailyLabel.createMany({
      data: days.flatMap(({ day, clicks }) => {
        const people = clicks - Math.floor(clicks / 6);
        return shares.flatMap(([dimension, labels]) =>
          labels.map(([label, share]) => ({
            code,
            day,
            dimension,
            label,
            clicks: Math.max(1, Math.round(people * share)),
          })),
        );
      }),
    });
    await sumRollups(prisma, code);
    const total = days.reduce((sum, day) => sum + day.clicks, 0);
    await prisma.link.update({ where: { code }, data: { clicks: { increment: total } } });
  }

  /** Creates a link from the links page; returns its code. */
  async function createLink(page: Page, url: string): Promise<string> {
    await page.getByLabel('URL').fill(url);
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.waitForURL('**/dashboard?created=*');
    return new URL(page.url()).searchParams.get('created')!;
  }

  beforeAll(async () => {
    testApp = await startTestApp({ RATE_LIMIT_ANONYMOUS: '1000000', RATE_LIMIT_TOKEN: '1000000', TRUST_PROXY: 'true' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await testApp?.close();
  });

  it('goes from sign-up through links, clicks and tokens to sign-out', async () => {
    const page = await newPage();
    await signUpInPage(page);
    await expect(page.getByText('No links yet').isVisible()).resolves.toBe(true);

    const code = await createLink(page, 'https://example.com/journey');
    const shortUrl = `${TEST_SHORT_BASE_URL}/${code}`;
    await expect(page.getByRole('link', { name: shortUrl }).isVisible()).resolves.toBe(true);

    expect(await follow(code, 'https://news.example/story')).toEqual({
      status: 302,
      location: 'https://example.com/journey',
    });

    await page.getByRole('link', { name: shortUrl }).click();
    await page.waitForURL(`**/dashboard/links/${code}`);
    await expect(page.getByText('1 click in total').isVisible()).resolves.toBe(true);
    await expect(page.getByRole('img', { name: /^1 click from .* with 1 click\.$/ }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('cell', { name: 'news.example' }).isVisible()).resolves.toBe(true);
    // The per-day table is the chart's text alternative: today's row holds the click.
    await page.getByText('Show the numbers as a table').click();
    const today = new Date().toISOString().slice(0, 10);
    await expect(page.getByRole('row', { name: `${today} 1 0` }).isVisible()).resolves.toBe(true);
    // Who the visitor was: the browser's labels, and the country of the address it came from
    // (X-Forwarded-For, see newClient(): 198.51.0.0/24 is in the United States).
    for (const [heading, row] of [
      ['Countries', 'United States (US) 1 100%'],
      ['Devices', 'Desktop 1 100%'],
      ['Browsers', 'Chrome 1 100%'],
      ['Operating systems', 'Linux 1 100%'],
    ]) {
      const section = page.getByRole('region', { name: heading });
      await expect(section.getByRole('heading', { level: 3, name: heading }).isVisible()).resolves.toBe(true);
      await expect(section.getByRole('row', { name: row }).isVisible()).resolves.toBe(true);
    }

    // The account's overview: all links together, the link among the top ones.
    await page.getByRole('link', { name: 'Clicks', exact: true }).click();
    await page.waitForURL('**/dashboard/clicks');
    await expect(page.getByRole('heading', { level: 1, name: 'Clicks' }).isVisible()).resolves.toBe(true);
    await expect(page.getByRole('img', { name: /^1 click from .* with 1 click\.$/ }).isVisible()).resolves.toBe(true);
    await page.getByRole('region', { name: 'Top links' }).getByRole('link', { name: code }).click();
    await page.waitForURL(`**/dashboard/links/${code}`);

    await page.getByRole('link', { name: 'API tokens' }).click();
    await page.getByLabel('Name').fill('journey script');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.getByLabel('New token', { exact: true }).textContent())!.trim();
    expect(token).toMatch(/^\S{20,}$/);
    // Shown once: the list afterwards has only its prefix.
    await page.goto('/dashboard/tokens');
    expect(await page.content()).not.toContain(token);

    const viaApi = await testApp.request('/api/links', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      json: { url: 'https://example.com/from-the-api' },
    });
    expect(viaApi.status).toBe(201);
    await page.goto('/dashboard');
    await expect(page.getByText('https://example.com/from-the-api').isVisible()).resolves.toBe(true);

    await page.goto('/dashboard/tokens');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke journey script' }).click();
    await page.waitForURL('**/dashboard/tokens?revoked=1');
    const afterRevoke = await testApp.request('/api/links', { headers: { authorization: `Bearer ${token}` } });
    expect(afterRevoke.status).toBe(401);

    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect(page.getByText('Password changed.').isVisible()).resolves.toBe(true);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL('**/login');
    await page.goto('/dashboard/tokens');
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(new URL(page.url()).searchParams.get('next')).toBe('/dashboard/tokens');
  });

  it('works with JavaScript turned off: sign up, create, delete and revoke after confirming, sign out', async () => {
    const page = await newPage({ javaScriptEnabled: false });
    await signUpInPage(page);

    const code = await createLink(page, 'https://example.com/no-script');
    // The disclosure that stands in for the dialog is reached by keyboard like any control.
    expect(await tabThrough(page, `/dashboard/links/${code}`)).toEqual(walkedCleanly(`/dashboard/links/${code}`));
    await page.goto(`/dashboard/links/${code}`);
    // No script, no dialog: the disclosure is the confirmation, its Delete button hidden until opened.
    const deleteButton = page.getByRole('button', { name: 'Delete', exact: true });
    await expect(deleteButton.isVisible()).resolves.toBe(false);
    await page.getByText(`Delete ${TEST_SHORT_BASE_URL}/${code}…`).click();
    await deleteButton.click();
    await page.waitForURL('**/dashboard?deleted=1');
    await expect(page.getByText('Link deleted.').isVisible()).resolves.toBe(true);
    expect((await testApp.request(`/${code}`)).status).toBe(404);

    // The clicks overview's window is a plain form: it works without script.
    await page.getByRole('link', { name: 'Clicks', exact: true }).click();
    await page.getByLabel('Show the last').selectOption('7');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL('**/dashboard/clicks?days=7');
    await expect(page.getByRole('heading', { name: 'Clicks per day, last 7 days' }).isVisible()).resolves.toBe(true);
    await page.getByText('Show the numbers as a table').click();
    await expect(page.getByRole('row', { name: /^\d{4}-\d{2}-\d{2} 0 0$/ }).count()).resolves.toBe(7);

    // Revoking a token asks first too: the disclosure, then the button inside it.
    await page.goto('/dashboard/tokens');
    await page.getByLabel('Name').fill('no-script token');
    await page.getByRole('button', { name: 'Create token' }).click();
    const revoke = page.getByRole('button', { name: 'Revoke no-script token' });
    await expect(revoke.isVisible()).resolves.toBe(false);
    await page.getByText('Revoke…').click();
    await revoke.click();
    await page.waitForURL('**/dashboard/tokens?revoked=1');
    await expect(page.getByRole('cell', { name: /^revoked \d{4}-\d{2}-\d{2}$/ }).isVisible()).resolves.toBe(true);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/login');
    await page.goto('/dashboard');
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  it('reaches every control with Tab, each with a visible focus ring', async () => {
    const page = await newPage();
    for (const path of ['/', '/login', '/signup']) {
      expect(await tabThrough(page, path)).toEqual(walkedCleanly(path));
    }
    await signUpInPage(page);
    const code = await createLink(page, 'https://example.com/keyboard');
    for (const path of [
      '/dashboard',
      `/dashboard/links/${code}`,
      '/dashboard/clicks',
      '/dashboard/tokens',
      '/account',
    ]) {
      expect(await tabThrough(page, path)).toEqual(walkedCleanly(path));
    }
  });

  describe.each(SIZES)('every page at %s size', (size, viewport) => {
    it('has no serious or critical axe-core violations, and leaves screenshots', async () => {
      // The CSP (rightly) refuses inline script; axe is injected as one, so only this context bypasses it.
      const page = await newPage({ viewport, bypassCSP: true });
      const { found, check } = violationsOnPages(page, size);

      await page.goto('/');
      await check('front');
      await page.getByLabel('URL').fill('https://example.com/anonymous');
      await page.getByRole('button', { name: 'Shorten' }).click();
      await check('front-shortened');
      await page.goto('/login');
      await check('login');
      await page.getByLabel('Email').fill(newEmail());
      await page.getByLabel('Password').fill('wrong password');
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await check('login-refused');
      await page.goto('/signup');
      await page.getByLabel('Email').fill(newEmail());
      await page.getByLabel('Password').fill('password123');
      await page.getByRole('button', { name: 'Sign up' }).click();
      expect(await page.getByText(/commonly used password|most used passwords/).isVisible()).toBe(true);
      await check('signup-refused');

      const email = await signUpInPage(page);
      await check('links-empty');
      const code = await createLink(page, `https://example.com/${'a-rather-long-path/'.repeat(6)}`);
      await createLink(page, 'https://example.com/docs');
      await page.getByLabel('URL').fill('ftp://example.com/');
      await page.getByRole('button', { name: 'Create link' }).click();
      await check('links');
      // The history first: it is written as the flush would have, before today's click is.
      await seedHistory(code);
      await follow(code, 'https://news.example/');
      await page.goto(`/dashboard/links/${code}`);
      await expect(page.getByText(/^670 clicks in 30 days, 99 of them from bots/).isVisible()).resolves.toBe(true);
      await expect(page.getByRole('row', { name: /^United States \(US\) \d+ 4\d%$/ }).isVisible()).resolves.toBe(true);
      await check('link');
      await page.goto('/dashboard/clicks');
      await expect(page.getByRole('heading', { level: 1, name: 'Clicks' }).isVisible()).resolves.toBe(true);
      await check('clicks');
      await page.goto('/dashboard/tokens');
      await check('tokens-empty');
      await page.getByLabel('Name').fill('deploy script');
      await page.getByRole('button', { name: 'Create token' }).click();
      await check('tokens');
      await page.goto('/account');
      await check('account');
      // Two-factor sign-in: turned on as a person does (the secret typed into an app), then used.
      const secret = ((await page.getByLabel('Secret key').textContent()) ?? '').trim();
      const step = Math.floor(Date.now() / 30_000);
      await page.getByLabel('Code').fill(await generate({ secret, epoch: step * 30 + 1 }));
      await page.getByRole('button', { name: 'Turn on' }).click();
      expect(await page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').count()).toBe(10);
      await check('account-two-factor');
      await page.getByRole('button', { name: 'Sign out' }).first().click();
      await page.waitForURL('**/login');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.waitForURL('**/login/code');
      await check('login-code');
      await page.getByLabel('Code').fill('000000');
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await check('login-code-refused');
      await page.getByLabel('Code').fill(await generate({ secret, epoch: (step + 1) * 30 + 1 }));
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.waitForURL('**/dashboard');
      await page.goto('/dashboard/links/no-such-code');
      await check('not-found');

      expect(found).toEqual(Object.fromEntries(Object.keys(found).map((name) => [name, []])));
      // Sixteen pages and states, each checked and photographed: about 15 s on an idle machine,
      // several times that on a loaded CI runner.
    }, 180_000);
  });
});
