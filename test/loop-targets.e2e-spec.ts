import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrismaService } from '../src/database/prisma.service.js';
import { createAccountWithToken, newClient, type TestAccount } from './support/factories.js';
import { Browser } from './support/browser/form-browser.js';
import { freePort } from './support/processes/free-port.js';
import { shortlinkInProcess } from './support/processes/cli-in-process.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const LOOP_DETAIL = /points back at this short-link service/;

/**
 * Issue 33: a target that reaches the service under another name for its host (and the same port)
 * makes a link that redirects to itself, counting a click at every hop. Every way a link is made
 * or changed refuses it with 400 `invalid_url`, and saves nothing.
 */
describe('targets that point back at the service', () => {
  let testApp: TestApp;
  let port: number;
  let base: string;
  let account: TestAccount;
  let spellings: string[];
  let dir: string;

  beforeAll(async () => {
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    testApp = await startTestApp({
      PORT: String(port),
      SHORT_BASE_URL: base,
      TRUST_PROXY: 'true',
      RATE_LIMIT_ANONYMOUS: '1000000',
    });
    account = await createAccountWithToken(testApp);
    spellings = [
      `http://localhost:${port}/x`,
      `http://LOCALHOST.:${port}/x`,
      `http://[::ffff:127.0.0.1]:${port}/x`,
      `http://[::1]:${port}/x`,
      `http://127.0.0.1:${port}/x`,
      `http://127.1:${port}/x`,
      `https://localhost:${port}/x`,
    ];
    dir = mkdtempSync(join(tmpdir(), 'shortlink-loop-'));
  });
  afterAll(async () => {
    await testApp.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Links to the service, anyone's: the spec fails if any path saved one. */
  const savedLoops = () =>
    testApp.app.get(PrismaService).link.count({ where: { url: { in: spellings.map((url) => new URL(url).href) } } });

  it('POST /api/links refuses every spelling, with a token or without', async () => {
    for (const url of spellings) {
      for (const headers of [account.apiKey, newClient()]) {
        const response = await testApp.request('/api/links', { method: 'POST', headers, json: { url } });

        expect({ url, status: response.status }).toEqual({ url, status: 400 });
        expect(await response.json()).toMatchObject({
          error: 'invalid_url',
          detail: expect.stringMatching(LOOP_DETAIL),
        });
      }
    }
    expect(await savedLoops()).toBe(0);
  });

  it('keeps accepting the same host on another port: another service', async () => {
    const other = port === 65535 ? port - 1 : port + 1;
    const response = await testApp.request('/api/links', {
      method: 'POST',
      headers: account.apiKey,
      json: { url: `http://localhost:${other}/x` },
    });

    expect(response.status).toBe(201);
  });

  it('POST /api/links/bulk refuses each such item on its own', async () => {
    const response = await testApp.request('/api/links/bulk', {
      method: 'POST',
      headers: account.apiKey,
      json: { links: [...spellings.map((url) => ({ url })), { url: 'https://example.com/fine' }] },
    });

    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: Array<{ error?: { error: string; detail: string } }> };
    expect(data.slice(0, -1).map((item) => item.error?.error)).toEqual(spellings.map(() => 'invalid_url'));
    expect(data.at(-1)).toHaveProperty('link');
    expect(await savedLoops()).toBe(0);
  });

  it('PUT /api/links/{code} refuses every spelling and keeps the target', async () => {
    const code = 'loop-put';
    await testApp.request('/api/links', {
      method: 'POST',
      headers: account.apiKey,
      json: { url: 'https://example.com/put', custom_code: code },
    });

    for (const url of spellings) {
      const response = await testApp.request(`/api/links/${code}`, {
        method: 'PUT',
        headers: account.apiKey,
        json: { url },
      });

      expect({ url, status: response.status }).toEqual({ url, status: 400 });
      expect(await response.json()).toMatchObject({ error: 'invalid_url', detail: expect.stringMatching(LOOP_DETAIL) });
    }
    const link = await testApp.request(`/api/links/${code}`, { headers: account.apiKey });
    expect(await link.json()).toMatchObject({ url: 'https://example.com/put' });
  });

  it('GET /api/s answers error: invalid_url in plain text', async () => {
    for (const url of spellings) {
      const response = await testApp.request(`/api/s?url=${encodeURIComponent(url)}`, { headers: newClient() });

      expect({ url, status: response.status }).toEqual({ url, status: 400 });
      expect(await response.text()).toBe('error: invalid_url');
    }
    expect(await savedLoops()).toBe(0);
  });

  it('the front page, the dashboard and the link page refuse it next to the URL field', async () => {
    const browser = new Browser(testApp);
    const signedUp = await browser.post('/signup', { email: 'loops@example.test', password: 'correct horse battery' });
    expect(signedUp.status).toBe(303);
    const created = await browser.post('/dashboard', { url: 'https://example.com/page', custom_code: 'loop-page' });
    expect(created.status).toBe(303);
    const visitor = new Browser(testApp);

    for (const url of spellings) {
      const anonymous = await visitor.post('/', { url });
      const create = await browser.post('/dashboard', { url, custom_code: '', expires_at: '' });
      const edit = await browser.post('/dashboard/links/loop-page', { url, expires_at: '' });

      for (const page of [anonymous, create, edit]) {
        expect({ url, status: page.status }).toEqual({ url, status: 400 });
        expect(await page.text()).toMatch(LOOP_DETAIL);
      }
    }
    const page = await browser.get('/dashboard/links/loop-page');
    expect(await page.text()).toContain('https://example.com/page');
    expect(await savedLoops()).toBe(0);
  });

  it('shortlink links import reports each such row invalid and imports the rest', async () => {
    const importer = await createAccountWithToken(testApp);
    const file = join(dir, 'loops.csv');
    writeFileSync(file, ['url', ...spellings, 'https://example.com/imported'].join('\n'));

    const result = await shortlinkInProcess(['links', 'import', importer.email, file], {
      DATABASE_URL: testApp.database.url,
      SHORT_BASE_URL: base,
    });

    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.at(-1)).toBe(`created 1, skipped 0 (code taken), invalid ${spellings.length}`);
    expect(lines.slice(0, -1)).toEqual(
      spellings.map((_url, i) => expect.stringMatching(new RegExp(`^line ${i + 2}: invalid: .*${LOOP_DETAIL.source}`))),
    );
    expect(await savedLoops()).toBe(0);
  });
});
