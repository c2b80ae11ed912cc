// "Forgot password?" as a person uses it, in Chromium (Debian's, through playwright-core): from the
// sign-in page to the email (read from a real SMTP server on 127.0.0.1), its link, a new password
// and signing in with it; by keyboard, with JavaScript off, and with axe-core at desktop and phone
// sizes. Screenshots go to .cache/screenshots/ (password-reset-*.png).
import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';
import { AccountsService } from '../src/accounts/accounts.service.js';
import { launchChromium } from './support/browser/chromium.js';
import { newPersonPage, SIZES } from './support/browser/pages.js';
import { MailSink } from './support/processes/mail-sink.js';
import { seriousViolations, tabThrough, walkedCleanly } from './support/browser/page-checks.js';
import { startTestApp, TEST_SHORT_BASE_URL, type TestApp } from './support/test-app.js';
import { PASSWORD as OLD_PASSWORD } from './support/people.js';

const NEW_PASSWORD = 'purple elephant umbrella';

describe('Forgot password? in a browser', () => {
  let sink: MailSink;
  let testApp: TestApp;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let nextEmail = 1;

  /** A fresh browser profile on the test app: a person of their own, from an address of their own. */
  const newPage = (options?: BrowserContextOptions) => newPersonPage(browser, testApp.baseUrl, contexts, options);

  async function account(): Promise<string> {
    const email = `reset-${process.pid}-${nextEmail++}@example.test`;
    await testApp.app.get(AccountsService).register(email, OLD_PASSWORD);
    return email;
  }

  /** The path of the reset link in the latest email to `email`. */
  async function resetLinkFor(email: string, count = 1): Promise<string> {
    const mails = await sink.mailsTo(email, count);
    return MailSink.linkIn(mails[count - 1], `${TEST_SHORT_BASE_URL}/password-reset/`).slice(
      TEST_SHORT_BASE_URL.length,
    );
  }

  beforeAll(async () => {
    sink = await MailSink.start();
    testApp = await startTestApp({ TRUST_PROXY: 'true', SMTP_URL: sink.url });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await testApp?.close();
    await sink?.stop();
  });

  it('walks from the sign-in page to the email, a new password and signing in with it', async () => {
    const email = await account();
    const page = await newPage();
    await page.goto('/login');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.waitForURL('**/password-reset');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send link' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();

    await page.goto(await resetLinkFor(email));
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('heading', { name: 'Password set' }).waitFor();
    await page.getByRole('link', { name: 'Sign in' }).last().click();

    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL('**/dashboard');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Your links');
  });

  it('works by keyboard alone', async () => {
    const email = await account();
    const page = await newPage();
    expect(await tabThrough(page, '/password-reset')).toEqual(walkedCleanly('/password-reset'));
    await page.goto('/password-reset');
    await page.getByLabel('Email').focus();
    await page.keyboard.type(email);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    const link = await resetLinkFor(email);
    expect(await tabThrough(page, link)).toEqual(walkedCleanly(link));
    await page.goto(link);
    await page.getByLabel('New password').focus();
    await page.keyboard.type(NEW_PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Password set' }).waitFor();
  });

  it('works with JavaScript turned off, and says so when a weak password is chosen', async () => {
    const email = await account();
    const page = await newPage({ javaScriptEnabled: false });
    await page.goto('/password-reset');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send link' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    await page.goto(await resetLinkFor(email));
    await page.getByLabel('New password').fill('password');
    await page.getByRole('button', { name: 'Set password' }).click();
    const error = page.locator('#password-error');
    await error.waitFor();
    expect(await page.getByLabel('New password').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('heading', { name: 'Password set' }).waitFor();
  });

  it.each(SIZES)('has no serious accessibility problem on its pages (%s)', async (size, viewport) => {
    const email = await account();
    const page = await newPage({ viewport, bypassCSP: true });
    const found: Record<string, string[]> = {};
    await page.goto('/password-reset');
    found.ask = await seriousViolations(page, `password-reset-ask-${size}`);
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send link' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    found.sent = await seriousViolations(page, `password-reset-sent-${size}`);
    const link = await resetLinkFor(email);
    await page.goto(link);
    found.choose = await seriousViolations(page, `password-reset-choose-${size}`);
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('heading', { name: 'Password set' }).waitFor();
    found.done = await seriousViolations(page, `password-reset-done-${size}`);
    await page.goto(link);
    found.gone = await seriousViolations(page, `password-reset-gone-${size}`);
    expect(found).toEqual({ ask: [], sent: [], choose: [], done: [], gone: [] });
  });
});
