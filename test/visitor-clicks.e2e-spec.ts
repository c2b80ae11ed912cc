import { ClickSink } from '../src/clicks/click-sink.js';
import { SqliteClickSink } from '../src/clicks/sqlite-click-sink.js';
import { PrismaService } from '../src/database/prisma.service.js';
import { createAccountWithToken, type TestAccount } from './support/factories.js';
import { eventually } from './support/eventually.js';
import { startTestApp, type TestApp } from './support/test-app.js';

type Counts<K extends string> = Array<Record<K, string> & { clicks: number }>;

interface LinkClicks {
  total: number;
  bots: number;
  days: Array<{ date: string; clicks: number; bots: number }>;
  referrers: Counts<'host'>;
  countries: Counts<'country'>;
  devices: Counts<'device'>;
  browsers: Counts<'browser'>;
  os: Counts<'os'>;
}

interface AccountClicks {
  total: number;
  bots: number;
  days: Array<{ date: string; clicks: number; bots: number }>;
  links: Counts<'code'>;
  countries: Counts<'country'>;
  referrers: Counts<'host'>;
}

const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:145.0) Gecko/20100101 Firefox/145.0';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1';
const ANDROID_CHROME =
  'Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
const IPAD =
  'Mozilla/5.0 (iPad; CPU OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1';
const EDGE_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0';

/** Addresses whose country the bundled database knows (checked when it was chosen). */
const US = '8.8.8.8';
const NL = '193.0.6.139';

const today = () => new Date().toISOString().slice(0, 10);

/**
 * Clicks from people and bots, with forwarded addresses, read back as every breakdown of a link
 * and of the account, before and after SQLite's click log is folded (PostgreSQL writes straight
 * through: both reads are the same there).
 */
describe('Visitor breakdowns: GET /api/links/{code}/clicks and GET /api/clicks', () => {
  let testApp: TestApp;
  let owner: TestAccount;

  beforeAll(async () => {
    testApp = await startTestApp({ CLICK_FLUSH_INTERVAL_MS: '50', TRUST_PROXY: 'true' });
    owner = await createAccountWithToken(testApp);
  });
  afterAll(() => testApp.close());

  async function createLink(account: TestAccount = owner): Promise<string> {
    const response = await testApp.request('/api/links', {
      method: 'POST',
      headers: account.bearer,
      json: { url: 'https://example.com/visitors' },
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { code: string }).code;
  }

  async function visit(code: string, userAgent: string, forwardedFor?: string, referer?: string): Promise<void> {
    const headers: Record<string, string> = { 'user-agent': userAgent };
    if (forwardedFor !== undefined) headers['x-forwarded-for'] = forwardedFor;
    if (referer !== undefined) headers.referer = referer;
    const response = await testApp.request(`/${code}`, { redirect: 'manual', headers });
    expect(response.status).toBe(302);
  }

  async function read<T>(path: string, account: TestAccount = owner): Promise<T> {
    const response = await testApp.request(path, { headers: account.bearer });
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  }

  async function fold(): Promise<void> {
    const sink = testApp.app.get(ClickSink);
    if (sink instanceof SqliteClickSink) await sink.fold();
  }

  it('counts people by country, device, browser and system, bots apart, for a link and for the account', async () => {
    const first = await createLink();
    const second = await createLink();
    // The first link: five people from three countries, three bots.
    await visit(first, IPHONE, `${NL}, 10.0.0.1`, 'https://news.example/a');
    await visit(first, IPHONE, NL, 'https://news.example/b');
    await visit(first, ANDROID_CHROME, US);
    await visit(first, IPAD, US);
    await visit(first, FIREFOX_LINUX); // from 127.0.0.1: no country
    await visit(first, 'curl/8.5.0', US, 'https://chat.example/');
    await visit(first, 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', NL);
    await visit(first, 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', US);
    // The second: two people on Windows, one bot.
    await visit(second, EDGE_WINDOWS, US, 'https://blog.example/');
    await visit(second, EDGE_WINDOWS, '2001:4860:4860::8888', 'https://blog.example/');
    await visit(second, 'python-requests/2.32.3', NL);

    await eventually(async () => expect((await read<LinkClicks>(`/api/links/${second}/clicks`)).total).toBe(3));
    await eventually(async () => expect((await read<LinkClicks>(`/api/links/${first}/clicks`)).total).toBe(8));
    const before = {
      first: await read<LinkClicks>(`/api/links/${first}/clicks`),
      second: await read<LinkClicks>(`/api/links/${second}/clicks?days=7`),
      account: await read<AccountClicks>('/api/clicks'),
    };
    await fold();
    const after = {
      first: await read<LinkClicks>(`/api/links/${first}/clicks`),
      second: await read<LinkClicks>(`/api/links/${second}/clicks?days=7`),
      account: await read<AccountClicks>('/api/clicks'),
    };

    for (const body of [before, after]) {
      expect(body.first).toMatchObject({
        total: 8,
        bots: 3,
        referrers: [
          { host: 'news.example', clicks: 2 },
          { host: '(direct)', clicks: 3 },
        ].sort((a, b) => b.clicks - a.clicks),
        countries: [
          { country: 'US', clicks: 2 },
          { country: 'NL', clicks: 2 },
          { country: 'ZZ', clicks: 1 },
        ].sort((a, b) => b.clicks - a.clicks || a.country.localeCompare(b.country)),
        devices: [
          { device: 'mobile', clicks: 3 },
          { device: 'desktop', clicks: 1 },
          { device: 'tablet', clicks: 1 },
        ],
        browsers: [
          { browser: 'Safari', clicks: 3 },
          { browser: 'Chrome', clicks: 1 },
          { browser: 'Firefox', clicks: 1 },
        ],
        os: [
          { os: 'iOS', clicks: 3 },
          { os: 'Android', clicks: 1 },
          { os: 'Linux', clicks: 1 },
        ],
      });
      expect(body.first.days.at(-1)).toEqual({ date: today(), clicks: 8, bots: 3 });
      expect(body.second).toMatchObject({
        total: 3,
        bots: 1,
        countries: [{ country: 'US', clicks: 2 }],
        devices: [{ device: 'desktop', clicks: 2 }],
        browsers: [{ browser: 'Microsoft Edge', clicks: 2 }],
        os: [{ os: 'Windows', clicks: 2 }],
        referrers: [{ host: 'blog.example', clicks: 2 }],
      });
      expect(body.second.days).toHaveLength(7);

      expect(body.account.total).toBe(11);
      expect(body.account.bots).toBe(4);
      expect(body.account.days).toHaveLength(30);
      expect(body.account.days.at(-1)).toEqual({ date: today(), clicks: 11, bots: 4 });
      expect(body.account.links).toEqual([
        { code: first, clicks: 8 },
        { code: second, clicks: 3 },
      ]);
      expect(body.account.countries).toEqual([
        { country: 'US', clicks: 4 },
        { country: 'NL', clicks: 2 },
        { country: 'ZZ', clicks: 1 },
      ]);
      expect(body.account.referrers).toEqual([
        { host: '(direct)', clicks: 3 },
        { host: 'blog.example', clicks: 2 },
        { host: 'news.example', clicks: 2 },
      ]);
    }
  });

  it('stores only labels: no address or user agent reaches the database', async () => {
    const code = await createLink();
    const secretAgent = `${IPHONE} Zq7Marker/9.9`;
    await visit(code, secretAgent, '203.0.113.77, 8.8.4.4');
    await eventually(async () => expect((await read<LinkClicks>(`/api/links/${code}/clicks`)).total).toBe(1));
    await fold();
    const prisma = testApp.app.get(PrismaService);
    const rows = JSON.stringify([
      await prisma.linkDailyClicks.findMany({ where: { code } }),
      await prisma.linkDailyReferrer.findMany({ where: { code } }),
      await prisma.linkDailyLabel.findMany({ where: { code } }),
      await prisma.clickBatch.findMany(),
    ]);
    for (const fact of ['203.0.113.77', '8.8.4.4', 'Zq7Marker', 'iPhone OS']) expect(rows).not.toContain(fact);
    // 203.0.113.0/24 is for documentation: no country.
    expect((await read<LinkClicks>(`/api/links/${code}/clicks`)).countries).toEqual([{ country: 'ZZ', clicks: 1 }]);
  });

  it('redirects and counts whatever the User-Agent and X-Forwarded-For hold, storing nothing unbounded', async () => {
    const code = await createLink();
    const hostile: Array<[string, string]> = [
      // 10 KB each (both in one request would pass Node's 16 KB header limit: 431).
      [`${IPHONE} ${'x'.repeat(10_000)}`, US],
      [IPHONE, 'y'.repeat(10_000)],
      [IPHONE, Array.from({ length: 1000 }, (_, i) => `10.1.${i >> 8}.${i & 0xff}`).join(', ')],
      [IPHONE, 'fe80::1%eth0'],
      [IPHONE, '[2001:db8::1]:8443, 8.8.8.8'],
      [IPHONE, '::ffff:8.8.8.8'],
      [IPHONE, 'garbage, 8.8.8.8'],
      ['\u00e9\u00e8 ;;; ()', US],
    ];
    for (const [agent, forwardedFor] of hostile) {
      // fetch refuses header values outside Latin-1; the rest goes on the wire as given.
      await visit(code, agent, forwardedFor);
    }
    await eventually(async () =>
      expect((await read<LinkClicks>(`/api/links/${code}/clicks`)).total).toBe(hostile.length),
    );
    await fold();
    const body = await read<LinkClicks>(`/api/links/${code}/clicks`);
    expect(body.bots + body.devices.reduce((sum, row) => sum + row.clicks, 0)).toBe(hostile.length);
    // ::ffff:8.8.8.8 is 8.8.8.8; the rest have no usable first entry and come from loopback.
    expect(body.countries.find((row) => row.country === 'US')?.clicks).toBeGreaterThanOrEqual(1);
    const labels = await testApp.app.get(PrismaService).linkDailyLabel.findMany({ where: { code } });
    for (const { label } of labels) expect(label).toMatch(/^[\x20-\x7e]{1,40}$/);
  });

  it("leaves other accounts' links out of the overview", async () => {
    const other = await createAccountWithToken(testApp);
    const theirs = await createLink(other);
    await visit(theirs, IPHONE, NL);
    await eventually(async () => expect((await read<AccountClicks>('/api/clicks', other)).total).toBe(1));
    const mine = await read<AccountClicks>('/api/clicks');
    expect(mine.links.map((link) => link.code)).not.toContain(theirs);
    expect((await read<AccountClicks>('/api/clicks', other)).links).toEqual([{ code: theirs, clicks: 1 }]);
    const fresh = await createAccountWithToken(testApp);
    expect(await read<AccountClicks>('/api/clicks?days=1', fresh)).toEqual({
      total: 0,
      bots: 0,
      days: [{ date: today(), clicks: 0, bots: 0 }],
      links: [],
      countries: [],
      referrers: [],
    });
  });

  it("keeps a deleted link's clicks in the account's days and countries, not among its links", async () => {
    const account = await createAccountWithToken(testApp);
    const kept = await createLink(account);
    const deleted = await createLink(account);
    await visit(kept, IPHONE, NL);
    await visit(deleted, IPHONE, US);
    await visit(deleted, 'curl/8.5.0', US);
    await eventually(async () => expect((await read<AccountClicks>('/api/clicks', account)).total).toBe(3));
    await fold();
    const response = await testApp.request(`/api/links/${deleted}`, { method: 'DELETE', headers: account.bearer });
    expect(response.status).toBe(204);

    const body = await read<AccountClicks>('/api/clicks', account);
    expect(body).toMatchObject({
      total: 3,
      bots: 1,
      links: [{ code: kept, clicks: 1 }],
      countries: [
        { country: 'NL', clicks: 1 },
        { country: 'US', clicks: 1 },
      ],
    });
  });

  it('adds the logged clicks of an account while the log holds more codes than it has links, and of one with more links', async () => {
    // A wave of clicks over many links of another account: on SQLite the click log then holds
    // more codes than `few` has links, and its reads look up its own codes instead of every
    // logged one; `many` has more links than the log has codes, and passes them all.
    const few = await createAccountWithToken(testApp);
    const many = await createAccountWithToken(testApp);
    const created = async (account: TestAccount, links: Array<{ url: string; tags?: string[] }>) => {
      const response = await testApp.request('/api/links/bulk', {
        method: 'POST',
        headers: account.bearer,
        json: { links },
      });
      expect(response.status).toBe(200);
      const { data } = (await response.json()) as { data: Array<{ link: { code: string } }> };
      return data.map((item) => item.link.code);
    };
    const [first, second, unclicked] = await created(few, [
      { url: 'https://example.com/few/1', tags: ['wave'] },
      { url: 'https://example.com/few/2', tags: ['wave', 'two'] },
      { url: 'https://example.com/few/3' },
    ]);
    const wave = [
      ...(await created(
        many,
        Array.from({ length: 700 }, (_, i) => ({ url: `https://example.com/many/${i}` })),
      )),
      ...(await created(
        many,
        Array.from({ length: 700 }, (_, i) => ({ url: `https://example.com/many/b${i}` })),
      )),
    ];
    const clicked = [first, first, second, ...wave.slice(0, 1_200)];
    for (let i = 0; i < clicked.length; i += 50) {
      await Promise.all(clicked.slice(i, i + 50).map((code) => visit(code, FIREFOX_LINUX, US)));
    }

    const expectFew = async () => {
      const overview = await read<AccountClicks>('/api/clicks?days=1', few);
      expect(overview).toMatchObject({
        total: 3,
        links: [
          { code: first, clicks: 2 },
          { code: second, clicks: 1 },
        ],
      });
      expect(overview.links.map((link) => link.code)).not.toContain(unclicked);
      expect(await read<{ data: Array<{ tag: string; links: number; clicks: number }> }>('/api/tags', few)).toEqual({
        data: [
          { tag: 'two', links: 1, clicks: 1 },
          { tag: 'wave', links: 2, clicks: 3 },
        ],
        total: 2,
        limit: 100,
        offset: 0,
      });
      const theirs = await read<AccountClicks>('/api/clicks?days=1', many);
      expect(theirs.total).toBe(1_200);
      expect(theirs.links).toHaveLength(10);
      expect(theirs.links.every((link) => link.clicks === 1 && wave.includes(link.code))).toBe(true);
    };
    await eventually(expectFew);
    await fold();
    await expectFew();
  }, 60_000);

  it("ranks an account's links on folded and logged clicks together while over 1,000 of them are logged", async () => {
    // On SQLite the overview adds each logged link's clicks, batch by batch, to its folded days.
    await fold();
    const big = await createAccountWithToken(testApp);
    const codes: string[] = [];
    for (const size of [600, 500]) {
      const response = await testApp.request('/api/links/bulk', {
        method: 'POST',
        headers: big.bearer,
        json: { links: Array.from({ length: size }, (_, i) => ({ url: `https://example.com/big/${size}/${i}` })) },
      });
      expect(response.status).toBe(200);
      const { data } = (await response.json()) as { data: Array<{ link: { code: string } }> };
      codes.push(...data.map((item) => item.link.code));
    }
    const [both, foldedOnly, fewer, ...rest] = codes;
    // Folded first: 3 on `both`, 4 on `foldedOnly`, 2 on `fewer`.
    for (const code of [both, both, both, foldedOnly, foldedOnly, foldedOnly, foldedOnly, fewer, fewer]) {
      await visit(code, FIREFOX_LINUX, US);
    }
    await eventually(async () => expect((await read<AccountClicks>('/api/clicks?days=1', big)).total).toBe(9));
    await fold();
    // Then logged: every link but `foldedOnly` once, `both` once more.
    const wave = [both, both, fewer, ...rest];
    for (let i = 0; i < wave.length; i += 50) {
      await Promise.all(wave.slice(i, i + 50).map((code) => visit(code, FIREFOX_LINUX, US)));
    }
    const ones = [...rest].sort().slice(0, 7);
    const expected = {
      total: 9 + wave.length,
      links: [
        { code: both, clicks: 5 },
        { code: foldedOnly, clicks: 4 },
        { code: fewer, clicks: 3 },
        ...ones.map((code) => ({ code, clicks: 1 })),
      ],
    };
    await eventually(async () => expect(await read<AccountClicks>('/api/clicks?days=1', big)).toMatchObject(expected));
    await fold();
    expect(await read<AccountClicks>('/api/clicks?days=1', big)).toMatchObject(expected);
  }, 60_000);

  it('answers 400 for days out of range and 401/403 without a links:read token', async () => {
    for (const days of ['0', '367', 'abc', '1.5', '', '1e2', '-1']) {
      const response = await testApp.request(`/api/clicks?days=${days}`, { headers: owner.bearer });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: 'validation_failed' });
    }
    expect((await testApp.request('/api/clicks?days=366', { headers: owner.bearer })).status).toBe(200);
    expect((await testApp.request('/api/clicks')).status).toBe(401);
    const writeOnly = await createAccountWithToken(testApp, ['links:write']);
    expect((await testApp.request('/api/clicks', { headers: writeOnly.bearer })).status).toBe(403);
  });
});
