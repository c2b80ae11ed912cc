// The Webhooks page as a person uses it: Chromium (Debian's, through playwright-core) adds a
// webhook, copies its signing secret, sends a test and deletes it, with script on and off and by
// keyboard; axe-core checks it at desktop and phone sizes; screenshots go to .cache/screenshots/.
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { PrismaService } from '../src/database/prisma.service.js';
import { launchChromium } from './support/browser/chromium.js';
import { newPersonPage, SIZES } from './support/browser/pages.js';
import { eventually } from './support/eventually.js';
import { tabThrough, violationsOnPages, walkedCleanly } from './support/browser/page-checks.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { verifyMessage, WebhookReceiver } from './support/processes/webhook-receiver.js';
import { newEmail, signUpInPage } from './support/people.js';

describe('the Webhooks page in a browser', () => {
  let testApp: TestApp;
  let browser: Browser;
  let receiver: WebhookReceiver;
  const contexts: BrowserContext[] = [];

  /** A fresh browser profile on the test app: a person of their own, from an address of their own. */
  const newPage = (options?: BrowserContextOptions) => newPersonPage(browser, testApp.baseUrl, contexts, options);

  /** Adds a webhook from the page (every event ticked unless `untick` says); its signing secret. */
  async function addWebhook(page: Page, url: string, untick: string[] = []): Promise<string> {
    await page.goto('/dashboard/webhooks');
    await page.getByLabel('URL').fill(url);
    for (const event of untick) await page.getByLabel(event).uncheck();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    return ((await page.getByLabel('Signing secret', { exact: true }).textContent()) ?? '').trim();
  }

  beforeAll(async () => {
    [testApp, receiver] = await Promise.all([
      startTestApp({
        RATE_LIMIT_ANONYMOUS: '1000000',
        RATE_LIMIT_TOKEN: '1000000',
        TRUST_PROXY: 'true',
        WEBHOOK_ALLOW_PRIVATE: 'true',
      }),
      WebhookReceiver.start(),
    ]);
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await testApp?.close();
    await receiver?.close();
  });

  it('adds a webhook, shows its secret once, signs with it, sends a test and deletes it', async () => {
    const page = await newPage();
    await signUpInPage(page, newEmail('w'));
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL('**/dashboard/webhooks');
    await expect(page.getByRole('heading', { level: 1, name: 'Webhooks' }).isVisible()).resolves.toBe(true);
    await expect(page.getByText('No webhooks yet.').isVisible()).resolves.toBe(true);

    // A refused URL is shown next to its field, the input kept.
    await page.getByLabel('URL').fill('ftp://files.example/in');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await expect(page.getByText('The URL must be an http or https URL.').isVisible()).resolves.toBe(true);
    await expect(page.getByLabel('URL').inputValue()).resolves.toBe('ftp://files.example/in');
    // No event ticked is a mistake, not "every event" as the API's missing `events` is.
    await page.getByLabel('URL').fill(receiver.url('/page'));
    for (const event of ['link.created', 'link.updated', 'link.deleted', 'link.clicked']) {
      await page.getByLabel(event).uncheck();
    }
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await expect(page.getByText('Events must name at least one event.').isVisible()).resolves.toBe(true);

    const secret = await addWebhook(page, receiver.url('/page'), ['link.clicked']);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await expect(page.getByRole('button', { name: 'Copy' }).isVisible()).resolves.toBe(true);
    await expect(page.getByText('link.created, link.updated, link.deleted ·').isVisible()).resolves.toBe(true);
    await page.goto('/dashboard/webhooks');
    expect(await page.content()).not.toContain(secret);

    // A link made on the dashboard reaches the receiver, signed with the secret the page showed.
    await page.goto('/dashboard');
    await page.getByLabel('URL').fill('https://example.com/from-the-page');
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.waitForURL('**/dashboard?created=*');
    await eventually(() => Promise.resolve(expect(receiver.at('/page').length).toBeGreaterThan(0)));
    expect(verifyMessage(secret, receiver.at('/page')[0])).toMatchObject({
      type: 'link.created',
      data: { url: 'https://example.com/from-the-page' },
    });

    await page.goto('/dashboard/webhooks');
    await page.getByRole('button', { name: `Send test to ${receiver.url('/page')}` }).click();
    await page.waitForURL('**/dashboard/webhooks?tested=*');
    await expect(page.getByText('Test message sent.').isVisible()).resolves.toBe(true);
    await eventually(async () => {
      await page.reload();
      await expect(page.getByRole('row', { name: /^webhook\.test delivered 1 200 / }).isVisible()).resolves.toBe(true);
    });
    await expect(page.getByRole('row', { name: /^link\.created delivered 1 200 / }).isVisible()).resolves.toBe(true);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: `Delete the webhook to ${receiver.url('/page')}` }).click();
    await page.waitForURL('**/dashboard/webhooks?deleted=1');
    await expect(page.getByText('Webhook deleted.').isVisible()).resolves.toBe(true);
    await expect(page.getByText('No webhooks yet.').isVisible()).resolves.toBe(true);
  });

  it('works with JavaScript turned off, and says when a webhook was disabled', async () => {
    const page = await newPage({ javaScriptEnabled: false });
    await signUpInPage(page, newEmail('w'));
    const secret = await addWebhook(page, receiver.url('/no-script'));
    expect(secret).toMatch(/^whsec_/);

    await page.goto('/dashboard/webhooks');
    await page.getByRole('button', { name: /^Send test/ }).click();
    await page.waitForURL('**/dashboard/webhooks?tested=*');
    await eventually(() => Promise.resolve(expect(receiver.at('/no-script').length).toBe(1)));

    const prisma = testApp.app.get(PrismaService);
    await prisma.webhookEndpoint.updateMany({
      where: { url: receiver.url('/no-script') },
      data: { disabledAt: new Date('2026-11-20T08:00:00Z') },
    });
    await page.goto('/dashboard/webhooks');
    await expect(
      page.getByText(/^disabled Since 2026-11-20 08:00 UTC: nothing was delivered for 5 days/).isVisible(),
    ).resolves.toBe(true);
    await expect(page.getByRole('button', { name: /^Send test/ }).count()).resolves.toBe(0);

    // No script, no dialog: the disclosure is the confirmation.
    const remove = page.getByRole('button', { name: `Delete the webhook to ${receiver.url('/no-script')}` });
    await expect(remove.isVisible()).resolves.toBe(false);
    await page.getByText('Delete…').click();
    await remove.click();
    await page.waitForURL('**/dashboard/webhooks?deleted=1');
    await expect(prisma.webhookEndpoint.count({ where: { url: receiver.url('/no-script') } })).resolves.toBe(0);
  });

  it('reaches every control with Tab, each with a visible focus ring', async () => {
    const page = await newPage();
    await signUpInPage(page, newEmail('w'));
    await addWebhook(page, receiver.url('/keyboard'));
    expect(await tabThrough(page, '/dashboard/webhooks')).toEqual(walkedCleanly('/dashboard/webhooks'));
  });

  describe.each(SIZES)('at %s size', (size, viewport) => {
    it('has no serious or critical axe-core violations, and leaves screenshots', async () => {
      // The CSP (rightly) refuses inline script; axe is injected as one, so only this context bypasses it.
      const page = await newPage({ viewport, bypassCSP: true });
      const { found, check } = violationsOnPages(page, size);

      await signUpInPage(page, newEmail('w'));
      await page.goto('/dashboard/webhooks');
      await check('webhooks-empty');
      await page.getByLabel('URL').fill('http://user:pw@hooks.example/in');
      await page.getByRole('button', { name: 'Add webhook' }).click();
      await check('webhooks-refused');
      await addWebhook(page, receiver.url(`/screens/${size}/deliveries`), ['link.clicked']);
      await check('webhooks-created');
      await addWebhook(page, `${receiver.url(`/screens/${size}/`)}${'a-long-receiver-path/'.repeat(4)}disabled`);
      const prisma = testApp.app.get(PrismaService);
      await prisma.webhookEndpoint.updateMany({
        where: { url: { endsWith: '/disabled' }, disabledAt: null },
        data: { disabledAt: new Date() },
      });
      await page.goto('/dashboard/webhooks');
      await page.getByRole('button', { name: `Send test to ${receiver.url(`/screens/${size}/deliveries`)}` }).click();
      await eventually(async () => {
        await page.goto('/dashboard/webhooks');
        // On a phone each row is a card whose cells carry their column's name too.
        await expect(page.getByRole('row', { name: /webhook\.test.*delivered/ }).isVisible()).resolves.toBe(true);
      });
      await check('webhooks');

      expect(found).toEqual(Object.fromEntries(Object.keys(found).map((name) => [name, []])));
    });
  });
});
