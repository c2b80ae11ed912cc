import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './support/browser/chromium.js';
import { createAccountWithToken, type TestAccount } from './support/factories.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/** A page of another web app, on an origin of its own (another local port). */
async function startOtherSite(): Promise<{ origin: string; server: Server }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><html lang="en"><title>Another app</title><h1>Another app</h1></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/**
 * A browser page on another origin calling the API with a token, as a web app or browser
 * extension would: Chromium itself enforces CORS, so this is the real test of the headers.
 * Runs once (not per database): CORS is decided before any database is touched.
 */
describe('the API from a page on another origin, in Chromium', () => {
  let listed: { origin: string; server: Server };
  let unlisted: { origin: string; server: Server };
  let testApp: TestApp;
  let account: TestAccount;
  let browser: Browser;

  beforeAll(async () => {
    listed = await startOtherSite();
    unlisted = await startOtherSite();
    testApp = await startTestApp({ CORS_ORIGINS: listed.origin });
    account = await createAccountWithToken(testApp);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await testApp?.close();
    listed?.server.close();
    unlisted?.server.close();
  });

  /** Opens the other site and, from its page, creates a link through the API. */
  async function createLinkFrom(
    origin: string,
    url: string,
  ): Promise<{ status?: number; location?: string | null; failed?: string }> {
    const page: Page = await browser.newPage();
    try {
      await page.goto(origin);
      return await page.evaluate(
        async ({ api, token, url }) => {
          try {
            const response = await fetch(`${api}/api/links`, {
              method: 'POST',
              headers: { 'X-API-Key': token, 'Content-Type': 'application/json' },
              body: JSON.stringify({ url }),
            });
            return { status: response.status, location: response.headers.get('location') };
          } catch (error) {
            return { failed: String(error) };
          }
        },
        { api: testApp.baseUrl, token: account.token, url },
      );
    } finally {
      await page.close();
    }
  }

  it('succeeds from a listed origin, which can read the answer and its Location', async () => {
    const outcome = await createLinkFrom(listed.origin, 'https://example.com/from-another-app');

    expect(outcome.status).toBe(201);
    expect(outcome.location).toMatch(/^\/api\/links\/[0-9A-Za-z]{7}$/);
  });

  it('is blocked by the browser from an origin that is not listed, and nothing is created', async () => {
    const outcome = await createLinkFrom(unlisted.origin, 'https://example.com/from-a-stranger');

    expect(outcome).toEqual({ failed: 'TypeError: Failed to fetch' });
    const listedLinks = await testApp.request('/api/links', { headers: account.apiKey });
    const body = (await listedLinks.json()) as { data: { url: string }[] };
    expect(body.data.map((link) => link.url)).toEqual(['https://example.com/from-another-app']);
  });
});
