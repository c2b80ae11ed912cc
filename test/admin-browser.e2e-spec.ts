// Running a public instance as a person does it: Chromium (Debian's, through playwright-core)
// reports a link on /report, then an admin acts on it in /admin (reports, links, accounts,
// blocked hosts, the audit log), with script on and off and by keyboard; axe-core checks every
// page at desktop and phone sizes; screenshots go to .cache/screenshots/.
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { AccountsService } from '../src/accounts/accounts.service.js';
import { PrismaService } from '../src/database/prisma.service.js';
import { launchChromium } from './support/browser/chromium.js';
import { newPersonPage, SIZES } from './support/browser/pages.js';
import { createAccountWithToken, type TestAccount } from './support/factories.js';
import { tabThrough, violationsOnPages, walkedCleanly } from './support/browser/page-checks.js';
import { startTestApp, TEST_SHORT_BASE_URL, type TestApp } from './support/test-app.js';
import { createLink } from './support/api-client.js';
import { newEmail, PASSWORD } from './support/people.js';

describe('running a public instance in a browser', () => {
  let testApp: TestApp;
  let browser: Browser;
  let owner: TestAccount;
  const contexts: BrowserContext[] = [];
  let nextAddress = 1;

  /** A browser of its own, from an address of its own (the report limit counts per address). */
  const newPage = (options?: BrowserContextOptions) =>
    newPersonPage(browser, testApp.baseUrl, contexts, options, { 'x-forwarded-for': `192.0.2.${nextAddress++}` });

  /** An admin of the instance (made as the CLI makes one), signed in on `page` through /login. */
  async function signInAsAdmin(page: Page): Promise<string> {
    const email = newEmail('admin');
    const accounts = testApp.app.get(AccountsService);
    const account = await accounts.create(email, { admin: true });
    await accounts.setPassword(account.id, PASSWORD);
    await page.goto('/login');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL('**/dashboard');
    return email;
  }

  /** The admin pages' own navigation (the main one has a "Links" too). */
  function adminNav(page: Page) {
    return page.getByRole('navigation', { name: 'Administration' });
  }

  async function status(code: string): Promise<number> {
    return (await testApp.request(`/${code}`)).status;
  }

  async function report(page: Page, code: string, reason: string, details: string): Promise<void> {
    await page.goto('/report');
    await page.getByLabel('Short URL').fill(`${TEST_SHORT_BASE_URL}/${code}`);
    await page.getByLabel('Reason').selectOption(reason);
    await page.getByLabel('Details').fill(details);
    await page.getByRole('button', { name: 'Send report' }).click();
    await page.waitForURL('**/report?sent=1');
  }

  beforeAll(async () => {
    testApp = await startTestApp({ RATE_LIMIT_ANONYMOUS: '1000000', RATE_LIMIT_TOKEN: '1000000', TRUST_PROXY: 'true' });
    owner = await createAccountWithToken(testApp);
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await testApp?.close();
  });

  it('a visitor reports a link; an admin disables it, blocks its host, disables and enables its account', async () => {
    const phishing = (await createLink(testApp, owner, { url: 'https://login.phish.example/bank' })).code;
    const sameHost = (await createLink(testApp, owner, { url: 'https://phish.example/other' })).code;

    const visitor = await newPage();
    await visitor.goto('/login');
    await visitor.getByRole('link', { name: 'Report a link' }).click();
    await visitor.waitForURL('**/report');
    await report(visitor, phishing, 'phishing', 'It asks for my bank password');
    await expect(visitor.getByText('Thank you.').isVisible()).resolves.toBe(true);

    const page = await newPage();
    const adminEmail = await signInAsAdmin(page);
    await page.getByRole('link', { name: 'Admin' }).click();
    await page.waitForURL('**/admin');
    await expect(page.getByText('1 open report').isVisible()).resolves.toBe(true);
    await adminNav(page).getByRole('link', { name: 'Reports' }).click();
    await page.waitForURL('**/admin/reports');
    await expect(page.getByText('It asks for my bank password').isVisible()).resolves.toBe(true);
    await expect(page.getByText('https://login.phish.example/bank').isVisible()).resolves.toBe(true);
    await page.getByRole('button', { name: `Disable link ${phishing}` }).click();
    await page.waitForURL('**/admin/reports?**done=link-disabled');
    await expect(page.getByText('Link disabled: it answers 410 from now on.').isVisible()).resolves.toBe(true);
    await expect(page.getByText('No open reports.').isVisible()).resolves.toBe(true);
    expect(await status(phishing)).toBe(410);

    // The disabled link's page, as its visitors see it, leads to the report form.
    await visitor.goto(`/${phishing}`);
    await expect(visitor.getByRole('heading', { name: 'This link has been disabled' }).isVisible()).resolves.toBe(true);
    await expect(visitor.getByRole('link', { name: 'Report a link' }).first().isVisible()).resolves.toBe(true);

    await adminNav(page).getByRole('link', { name: 'Blocked hosts' }).click();
    await page.getByLabel('Host').fill('https://phish.example/');
    await page.getByRole('button', { name: 'Block host' }).click();
    await expect(
      page.getByText('The host must be a host name, not a URL: give phish.example.').isVisible(),
    ).resolves.toBe(true);
    await page.getByLabel('Host').fill('Phish.Example');
    await page.getByRole('button', { name: 'Block host' }).click();
    await page.waitForURL('**/admin/blocked-hosts?done=host-blocked**');
    await expect(page.getByText('phish.example is blocked: 1 link to it disabled.').isVisible()).resolves.toBe(true);
    expect(await status(sameHost)).toBe(410);

    await adminNav(page).getByRole('link', { name: 'Links' }).click();
    await page.getByLabel('Search links').fill('PHISH.example');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect(page.getByText('2 links match “PHISH.example”').isVisible()).resolves.toBe(true);
    await expect(page.getByText('Unblocking the host enables it again.').isVisible()).resolves.toBe(true);

    await adminNav(page).getByRole('link', { name: 'Accounts' }).click();
    await page.getByLabel('Search accounts').fill(owner.email.slice(0, 10));
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('Disable…').click();
    await page.getByLabel(`Reason for disabling ${owner.email}`).fill('Phishing campaign');
    await page.getByRole('button', { name: `Disable ${owner.email}` }).click();
    await page.waitForURL('**/admin/accounts?**done=account-disabled');
    await expect(page.getByText('Disabled', { exact: false }).first().isVisible()).resolves.toBe(true);
    expect((await testApp.request('/api/links', { headers: owner.apiKey })).status).toBe(403);
    await page.getByRole('button', { name: `Enable ${owner.email}` }).click();
    await page.waitForURL('**/admin/accounts?**done=account-enabled');
    expect((await testApp.request('/api/links', { headers: owner.apiKey })).status).toBe(200);

    await adminNav(page).getByRole('link', { name: 'Audit log' }).click();
    for (const action of ['link.disable', 'host.block', 'account.disable', 'account.enable']) {
      await expect(page.getByRole('cell', { name: action }).isVisible()).resolves.toBe(true);
    }
    await expect(page.getByRole('cell', { name: adminEmail }).first().isVisible()).resolves.toBe(true);

    await adminNav(page).getByRole('link', { name: 'Blocked hosts' }).click();
    await page.getByRole('button', { name: 'Unblock phish.example' }).click();
    await page.waitForURL('**/admin/blocked-hosts?done=host-unblocked');
    expect(await status(sameHost)).toBe(302);
    expect(await status(phishing)).toBe(410);
  });

  it('works with JavaScript turned off: disabling with a reason, enabling, deleting after confirming', async () => {
    const page = await newPage({ javaScriptEnabled: false });
    await signInAsAdmin(page);
    const code = (await createLink(testApp, owner, { url: 'https://no-script.example/' })).code;
    const doomed = await createAccountWithToken(testApp);

    await page.goto(`/admin/links?q=${code}`);
    const disable = page.getByRole('button', { name: `Disable ${code}` });
    await expect(disable.isVisible()).resolves.toBe(false);
    await page.getByText('Disable…').click();
    await page.getByLabel(`Reason for disabling ${code}`).fill('Malware download');
    await disable.click();
    await page.waitForURL('**/admin/links?**done=link-disabled');
    await expect(page.getByText(/Malware download/).isVisible()).resolves.toBe(true);
    expect(await status(code)).toBe(410);
    await page.getByRole('button', { name: `Enable ${code}` }).click();
    await page.waitForURL('**/admin/links?**done=link-enabled');
    expect(await status(code)).toBe(302);

    await page.goto(`/admin/accounts?q=${doomed.email}`);
    const remove = page.getByRole('button', { name: `Delete ${doomed.email}` });
    await expect(remove.isVisible()).resolves.toBe(false);
    await page.getByText('Delete…').click();
    await remove.click();
    await page.waitForURL('**/admin/accounts?**done=account-deleted');
    await expect(testApp.app.get(AccountsService).findById(doomed.accountId)).resolves.toBeNull();

    // The report form works without script too.
    const visitor = await newPage({ javaScriptEnabled: false });
    await report(visitor, code, 'spam', 'Sent to me in bulk');
    await expect(visitor.getByText('Thank you.').isVisible()).resolves.toBe(true);
  });

  it('reaches every control with Tab, each with a visible focus ring', async () => {
    const code = (await createLink(testApp, owner, { url: 'https://keyboard.example/' })).code;
    await testApp.app.get(PrismaService).report.create({ data: { code, reason: 'spam', details: 'keyboard' } });
    await testApp.app
      .get(PrismaService)
      .blockedHost.create({ data: { host: 'keyboard-blocked.example', createdBy: 'cli' } });
    const visitor = await newPage();
    expect(await tabThrough(visitor, '/report')).toEqual(walkedCleanly('/report'));

    const page = await newPage();
    await signInAsAdmin(page);
    for (const path of [
      '/admin',
      '/admin/reports',
      '/admin/links',
      '/admin/accounts',
      '/admin/blocked-hosts',
      '/admin/audit',
    ]) {
      expect(await tabThrough(page, path)).toEqual(walkedCleanly(path));
    }
  });

  describe.each(SIZES)('at %s size', (size, viewport) => {
    it('has no serious or critical axe-core violations, and leaves screenshots', async () => {
      // The CSP (rightly) refuses inline script; axe is injected as one, so only this context bypasses it.
      const page = await newPage({ viewport, bypassCSP: true });
      const { found, check } = violationsOnPages(page, size);
      const reported = (
        await createLink(testApp, owner, {
          url: `https://screens-${size}.example/a/long/path/to/a/page/that/imitates/a/bank`,
        })
      ).code;
      const disabled = (await createLink(testApp, owner, { url: `https://disabled-${size}.example/` })).code;

      await page.goto('/report');
      await check('report');
      await page.getByLabel('Short URL').fill('not a short link');
      await page.getByLabel('Details').fill('x'.repeat(10));
      await page.getByLabel('Email').fill('not an address');
      await page.getByRole('button', { name: 'Send report' }).click();
      await check('report-refused');
      await report(page, reported, 'phishing', 'A page that looks like my bank asked for my card number and PIN.');
      await check('report-sent');

      await signInAsAdmin(page);
      await page.goto('/admin');
      await check('admin');
      await page.goto('/admin/reports');
      await check('admin-reports');
      await page.goto(`/admin/links?q=${disabled}`);
      await page.getByText('Disable…').click();
      await page.getByLabel(`Reason for disabling ${disabled}`).fill('Malware download');
      await page.getByRole('button', { name: `Disable ${disabled}` }).click();
      await page.waitForURL('**/admin/links?**');
      await page.goto('/admin/links');
      await check('admin-links');
      await page.goto('/admin/accounts');
      await check('admin-accounts');
      await page.goto('/admin/blocked-hosts');
      await page.getByLabel('Host').fill(`blocked-${size}.example:8080`);
      await page.getByRole('button', { name: 'Block host' }).click();
      await check('admin-blocked-hosts-refused');
      await page.getByLabel('Host').fill(`blocked-${size}.example`);
      await page.getByRole('button', { name: 'Block host' }).click();
      await page.waitForURL('**/admin/blocked-hosts?**');
      await check('admin-blocked-hosts');
      await page.goto('/admin/audit');
      await check('admin-audit');
      await page.goto(`/${disabled}`);
      await check('link-disabled');

      expect(found).toEqual(Object.fromEntries(Object.keys(found).map((name) => [name, []])));
    });
  });
});
