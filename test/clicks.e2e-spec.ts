import { request as httpRequest } from 'node:http';
import { ClickCounter } from '../src/clicks/click-counter.js';
import { ClickSink } from '../src/clicks/click-sink.js';
import { SqliteClickSink } from '../src/clicks/sqlite-click-sink.js';
import { PrismaService } from '../src/database/prisma.service.js';
import { createAccountWithToken, type TestAccount } from './support/factories.js';
import { sumRollups } from './support/database/click-history.js';
import { eventually } from './support/eventually.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { expectProblem } from './support/problems.js';

interface LinkClicks {
  code: string;
  total: number;
  days: Array<{ date: string; clicks: number; bots: number }>;
  bots: number;
  referrers: Array<{ host: string; clicks: number }>;
}

/** A person's browser (fetch itself says `node`, a script's user agent: a bot). */
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:145.0) Gecko/20100101 Firefox/145.0';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1';

const DAY_MS = 86_400_000;
const dayBefore = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString().slice(0, 10);

describe('GET /api/links/{code}/clicks', () => {
  let testApp: TestApp;
  let owner: TestAccount;

  beforeAll(async () => {
    testApp = await startTestApp({ CLICK_FLUSH_INTERVAL_MS: '50' });
    owner = await createAccountWithToken(testApp);
  });
  afterAll(() => testApp.close());

  /** A link of `account` (null: anonymous). */
  async function createLink(account: TestAccount | null = owner): Promise<string> {
    const response = await testApp.request('/api/links', {
      method: 'POST',
      headers: account?.apiKey,
      json: { url: 'https://example.com/analytics' },
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { code: string }).code;
  }

  async function clicks(code: string, query = '', account: TestAccount = owner): Promise<LinkClicks> {
    const response = await testApp.request(`/api/links/${code}/clicks${query}`, { headers: account.bearer });
    expect(response.status).toBe(200);
    return (await response.json()) as LinkClicks;
  }

  async function visit(
    code: string,
    referer?: string,
    method = 'GET',
    userAgent: string | null = FIREFOX,
  ): Promise<void> {
    const headers: Record<string, string> = referer ? { referer } : {};
    if (userAgent !== null) headers['user-agent'] = userAgent;
    const response = await testApp.request(`/${code}`, { method, redirect: 'manual', headers });
    expect(response.status).toBe(302);
  }

  /** A request without any User-Agent header (fetch always adds one). */
  function visitWithoutUserAgent(code: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const { port } = new URL(testApp.baseUrl);
      const request = httpRequest(
        { host: '127.0.0.1', port, path: `/${code}`, headers: { referer: 'https://news.example/' } },
        (response) => {
          response.resume();
          response.on('end', () =>
            response.statusCode === 302 ? resolve() : reject(new Error(`${response.statusCode}`)),
          );
        },
      );
      request.on('error', reject);
      request.end();
    });
  }

  /** On SQLite, moves the click log into the links and their daily rows (PostgreSQL has none). */
  async function fold(): Promise<void> {
    const sink = testApp.app.get(ClickSink);
    if (sink instanceof SqliteClickSink) await sink.fold();
  }

  it('counts GET redirects per UTC day and by referrer host, not HEAD, and agrees with the link’s clicks', async () => {
    const code = await createLink();
    // The first visit is cold (through Fastify), the others are answered by the fast path.
    await visit(code, 'https://news.example/story/1?ref=x');
    await visit(code, 'https://NEWS.example:8443/story/2');
    await visit(code, 'https://user:pw@blog.example/post#top');
    await visit(code);
    await visit(code, 'not a url');
    await visit(code, 'https://news.example/', 'HEAD');

    await eventually(async () => expect((await clicks(code)).total).toBe(5));
    const before = await clicks(code);
    await fold();
    const after = await clicks(code);

    for (const body of [before, after]) {
      expect(body.code).toBe(code);
      expect(body.total).toBe(5);
      expect(body.days).toHaveLength(30);
      expect(body.days.at(-1)).toEqual({ date: dayBefore(0), clicks: 5, bots: 0 });
      expect(body.days[0]).toEqual({ date: dayBefore(29), clicks: 0, bots: 0 });
      expect(body.bots).toBe(0);
      expect(body.days.slice(0, -1).every((day) => day.clicks === 0)).toBe(true);
      expect(body.referrers).toEqual([
        { host: '(direct)', clicks: 2 },
        { host: 'news.example', clicks: 2 },
        { host: 'blog.example', clicks: 1 },
      ]);
    }
    const link = await testApp.request(`/api/links/${code}`, { headers: owner.bearer });
    expect(((await link.json()) as { clicks: number }).clicks).toBe(5);
  });

  it('counts bots apart: in clicks and days[].bots, never among the referrers; people as before', async () => {
    const code = await createLink();
    const bots = [
      'curl/8.5.0',
      'python-requests/2.32.3',
      'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
      'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36',
      'UptimeRobot/2.0 (http://www.uptimerobot.com/)',
      'node',
    ];
    for (const agent of bots) await visit(code, 'https://chat.example/room', 'GET', agent);
    await visitWithoutUserAgent(code);
    await visit(code, 'https://news.example/a', 'GET', FIREFOX);
    await visit(code, 'https://news.example/b', 'GET', IPHONE);
    await visit(code, undefined, 'GET', IPHONE);
    // A hostile user agent, 10 KB with a control character: still redirected, counted as a bot.
    await visit(code, undefined, 'GET', `curl/8.5.0 ${'x'.repeat(10_000)}\t(evil)`);

    const botClicks = bots.length + 2;
    const total = botClicks + 3;
    await eventually(async () => expect((await clicks(code)).total).toBe(total));
    const before = await clicks(code);
    await fold();
    const after = await clicks(code);

    for (const body of [before, after]) {
      expect(body.total).toBe(total);
      expect(body.days.at(-1)).toEqual({ date: dayBefore(0), clicks: total, bots: botClicks });
      expect(body.bots).toBe(botClicks);
      expect(body.referrers).toEqual([
        { host: 'news.example', clicks: 2 },
        { host: '(direct)', clicks: 1 },
      ]);
    }
    const link = await testApp.request(`/api/links/${code}`, { headers: owner.bearer });
    expect(((await link.json()) as { clicks: number }).clicks).toBe(total);
  });

  it('shows the window asked for, oldest day first, over a year of daily rows; the total is all-time', async () => {
    const code = await createLink();
    const prisma = testApp.app.get(PrismaService);
    // A year of history, one click a day more the further back, written as a flush would.
    await prisma.linkDailyClicks.createMany({
      data: Array.from({ length: 400 }, (_, i) => ({ code, day: dayBefore(i + 1), clicks: i + 1 })),
    });
    await prisma.linkDailyReferrer.createMany({
      data: Array.from({ length: 400 }, (_, i) => ({
        code,
        day: dayBefore(i + 1),
        host: `site${i % 12}.example`,
        clicks: i + 1,
      })),
    });
    await sumRollups(prisma, code);
    const total = (400 * 401) / 2;
    await prisma.link.update({ where: { code }, data: { clicks: total } });
    await visit(code, 'https://site0.example/');
    await eventually(async () => expect((await clicks(code)).total).toBe(total + 1));

    const week = await clicks(code, '?days=7');
    expect(week.days).toEqual([
      ...[6, 5, 4, 3, 2, 1].map((daysAgo) => ({ date: dayBefore(daysAgo), clicks: daysAgo, bots: 0 })),
      { date: dayBefore(0), clicks: 1, bots: 0 },
    ]);
    // Days 1–6 back: hosts site0..site5 with 1..6 clicks, and today's visit from site0.
    expect(week.referrers).toEqual([
      { host: 'site5.example', clicks: 6 },
      { host: 'site4.example', clicks: 5 },
      { host: 'site3.example', clicks: 4 },
      { host: 'site2.example', clicks: 3 },
      { host: 'site0.example', clicks: 2 },
      { host: 'site1.example', clicks: 2 },
    ]);

    const year = await clicks(code, '?days=366');
    expect(year.days).toHaveLength(366);
    expect(year.days[0]).toEqual({ date: dayBefore(365), clicks: 365, bots: 0 });
    expect(year.days.reduce((sum, day) => sum + day.clicks, 0)).toBe((365 * 366) / 2 + 1);
    expect(year.total).toBe(total + 1);
    // Each window's hosts exactly, whichever day of the month it starts on (its first month is
    // read by day, the rest by month): day i + 1 back had i + 1 clicks from site(i % 12).
    const expectedReferrers = (days: number) => {
      const perHost = new Map([['site0.example', 1]]);
      for (let i = 0; i + 1 < days; i++) {
        const host = `site${i % 12}.example`;
        perHost.set(host, (perHost.get(host) ?? 0) + i + 1);
      }
      return [...perHost]
        .sort(([hostA, a], [hostB, b]) => b - a || (hostA < hostB ? -1 : 1))
        .slice(0, 10)
        .map(([host, clicks]) => ({ host, clicks }));
    };
    expect(year.referrers).toEqual(expectedReferrers(366));
    for (const days of [28, 29, 30, 31, 45, 90, 200]) {
      expect((await clicks(code, `?days=${days}`)).referrers).toEqual(expectedReferrers(days));
    }
  });

  it.each(['0', '367', '-1', 'abc', '1e3', '1.5', '', '7&days=8'])(
    'answers 400 validation_failed for ?days=%s',
    async (days) => {
      const code = await createLink();
      await expectProblem(
        await testApp.request(`/api/links/${code}/clicks?days=${days}`, { headers: owner.bearer }),
        400,
        'validation_failed',
      );
    },
  );

  it('answers 404 for another account’s, an anonymous, a deleted and an unknown code', async () => {
    const other = await createAccountWithToken(testApp);
    const othersCode = await createLink(other);
    const anonymousCode = await createLink(null);
    const deletedCode = await createLink();
    expect(
      (await testApp.request(`/api/links/${deletedCode}`, { method: 'DELETE', headers: owner.bearer })).status,
    ).toBe(204);

    for (const code of [othersCode, anonymousCode, deletedCode, 'Unknown1', 'no%20such', 'x']) {
      await expectProblem(
        await testApp.request(`/api/links/${code}/clicks`, { headers: owner.bearer }),
        404,
        'not_found',
      );
    }
    expect((await clicks(othersCode, '', other)).code).toBe(othersCode);
  });

  it('needs a token with links:read', async () => {
    const code = await createLink();
    await expectProblem(await testApp.request(`/api/links/${code}/clicks`), 401, 'unauthorized');
    const writeOnly = await createAccountWithToken(testApp, ['links:write']);
    await expectProblem(
      await testApp.request(`/api/links/${code}/clicks`, { headers: writeOnly.bearer }),
      403,
      'forbidden',
    );
  });

  it('deletes a link’s daily rows with it: a new link with the same code starts from nothing', async () => {
    const code = await createLink();
    await visit(code, 'https://news.example/');
    await eventually(async () => expect((await clicks(code)).total).toBe(1));
    await fold();
    const prisma = testApp.app.get(PrismaService);
    await eventually(async () => expect(await prisma.linkDailyClicks.count({ where: { code } })).toBe(1));

    await testApp.request(`/api/links/${code}`, { method: 'DELETE', headers: owner.bearer });
    expect(await prisma.linkDailyClicks.count({ where: { code } })).toBe(0);
    expect(await prisma.linkDailyReferrer.count({ where: { code } })).toBe(0);

    const created = await testApp.request('/api/links', {
      method: 'POST',
      headers: owner.bearer,
      json: { url: 'https://example.com/again', custom_code: code },
    });
    expect(created.status).toBe(201);
    const fresh = await clicks(code);
    expect(fresh.total).toBe(0);
    expect(fresh.days.every((day) => day.clicks === 0)).toBe(true);
    expect(fresh.referrers).toEqual([]);
  });

  it('writes what is still in memory at shutdown', async () => {
    // The counter's pending clicks are written by the last flush (see test/shutdown.e2e-spec.ts
    // for the process being stopped by SIGTERM).
    const code = await createLink();
    testApp.app.get(ClickCounter).record(code, 'https://late.example/', FIREFOX);
    await testApp.app.get(ClickCounter).flush();
    await fold();
    expect((await clicks(code)).referrers).toEqual([{ host: 'late.example', clicks: 1 }]);
  });
});
