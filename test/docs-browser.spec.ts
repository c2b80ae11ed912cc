import type { Browser, Page, Request } from 'playwright-core';
import { launchChromium } from './support/browser/chromium.js';
import { createAccountWithToken, type TestAccount } from './support/factories.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * Swagger UI at /docs, in a real browser: it loads entirely from the service (nothing from the
 * internet), under its Content-Security-Policy, "Authorize" works with either token scheme, and
 * "Try it out" creates a link.
 * Runs once (not per database): the page is the same on both.
 */
describe('Swagger UI at /docs in Chromium', () => {
  let testApp: TestApp;
  let account: TestAccount;
  let browser: Browser;
  let page: Page;
  const requests: Request[] = [];
  const failures: string[] = [];

  beforeAll(async () => {
    testApp = await startTestApp();
    account = await createAccountWithToken(testApp);
    browser = await launchChromium();
    const context = await browser.newContext();
    context.on('request', (request) => requests.push(request));
    context.on('requestfailed', (request) =>
      failures.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`),
    );
    context.on('response', (response) => {
      if (response.status() >= 400)
        failures.push(`${response.request().method()} ${response.url()}: ${response.status()}`);
    });
    page = await context.newPage();
    // Fail fast on a changed selector instead of waiting out Playwright's 30 s default.
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (error) => failures.push(`page error: ${error.message}`));
    // The page runs under its Content-Security-Policy: anything it refuses is a failure.
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) failures.push(`CSP: ${message.text()}`);
    });
  });

  afterAll(async () => {
    await browser?.close();
    await testApp?.close();
  });

  /** Opens "Authorize", logs out of anything authorized before, and authorizes one scheme. */
  async function authorize(scheme: 'ApiKey' | 'Bearer', inputSelector: string): Promise<void> {
    await page.locator('.auth-wrapper > button.authorize').click();
    const modal = page.locator('.modal-ux');
    const logout = modal.locator('button.modal-btn', { hasText: 'Logout' });
    while ((await logout.count()) > 0) await logout.first().click();
    const form = modal.locator('.auth-container', { has: page.locator(`h4 code:text-is("${scheme}")`) });
    await form.locator(inputSelector).fill(account.token);
    await form.locator('button.modal-btn.authorize').click();
    await form.locator('button.modal-btn', { hasText: 'Logout' }).waitFor();
    await modal.locator('button.btn-done').first().click();
    await modal.waitFor({ state: 'detached' });
  }

  /** "Try it out" on POST /api/links with a body, "Execute"; the request the page sent. */
  async function tryCreateLink(url: string): Promise<{ request: Request; status: string }> {
    const operation = page.locator('#operations-links-createLink');
    if (!(await operation.locator('.try-out__btn.cancel').isVisible())) {
      if (!(await operation.locator('.opblock-body').isVisible())) await operation.locator('.opblock-summary').click();
      await operation.getByRole('button', { name: 'Try it out' }).click();
    }
    await operation.locator('textarea.body-param__text').fill(JSON.stringify({ url }));
    const sent = page.waitForRequest((request) => request.method() === 'POST' && request.url().endsWith('/api/links'));
    await operation.getByRole('button', { name: 'Execute' }).click();
    const request = await sent;
    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor();
    return { request, status: (await status.innerText()).trim() };
  }

  it('shows the shortlink API, loaded only from the service', async () => {
    await page.goto(`${testApp.baseUrl}/docs`);
    await page.locator('.swagger-ui .info .title').filter({ hasText: 'shortlink' }).waitFor();
    await page.locator('#operations-links-createLink').waitFor();

    expect(requests.length).toBeGreaterThan(3);
    expect(requests.map((request) => new URL(request.url()).origin).filter((o) => o !== testApp.baseUrl)).toEqual([]);
    expect(failures).toEqual([]);
  });

  it('from /docs/ (with a slash) lands on /docs, with every asset loaded', async () => {
    // The page before's last requests (its favicon) first: a navigation aborts those in flight,
    // which Chromium reports as failed (net::ERR_ABORTED), though nothing is wrong with them.
    await page.waitForLoadState('networkidle');
    const before = failures.length;
    await page.goto(`${testApp.baseUrl}/docs/`);
    await page.locator('.swagger-ui .info .title').filter({ hasText: 'shortlink' }).waitFor();

    expect(new URL(page.url()).pathname).toBe('/docs');
    expect(failures.slice(before)).toEqual([]);
  });

  it('authorizes with a Bearer token and creates a link with "Try it out" (201)', async () => {
    await authorize('Bearer', '#auth-bearer-value');
    const { request, status } = await tryCreateLink('https://example.com/from-swagger-bearer');

    expect(status).toBe('201');
    expect(await request.headerValue('authorization')).toBe(`Bearer ${account.token}`);
  });

  it('authorizes with X-API-Key and creates a link with "Try it out" (201)', async () => {
    await authorize('ApiKey', '#api_key_value');
    const { request, status } = await tryCreateLink('https://example.com/from-swagger-api-key');

    expect(status).toBe('201');
    expect(await request.headerValue('x-api-key')).toBe(account.token);
    expect(await request.headerValue('authorization')).toBeNull();
  });

  it('created both links under the account, and nothing failed or left the machine', async () => {
    const listed = await testApp.request('/api/links', { headers: account.apiKey });
    const body = (await listed.json()) as { data: { url: string }[] };

    expect(body.data.map((link) => link.url).sort()).toEqual([
      'https://example.com/from-swagger-api-key',
      'https://example.com/from-swagger-bearer',
    ]);
    expect(requests.map((request) => new URL(request.url()).origin).filter((o) => o !== testApp.baseUrl)).toEqual([]);
    expect(failures).toEqual([]);
  });
});
