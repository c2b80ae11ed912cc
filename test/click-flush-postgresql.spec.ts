// PostgreSQL's click flushes: counts go straight into links.clicks, from several instances at
// once. PostgreSQL only (SQLite logs them instead: test/click-log.spec.ts), so this spec makes
// its own database.
import { PrismaService } from '../src/database/prisma.service.js';
import { ClickCounter } from '../src/clicks/click-counter.js';
import { ClickSink } from '../src/clicks/click-sink.js';
import type { PostgresClickSink } from '../src/clicks/postgres-click-sink.js';
import type { CodeTally } from '../src/clicks/click-tally.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { createTestDatabase, type TestDatabase } from './support/database/test-database.js';

describe('click flushes (PostgreSQL)', () => {
  let database: TestDatabase;
  let testApp: TestApp;

  beforeAll(async () => {
    database = await createTestDatabase('postgresql');
    testApp = await startTestApp({}, database);
  });
  afterAll(async () => {
    await testApp.close();
    await database.drop();
  });

  /** Links written straight to the table: creating many through the API would take seconds. */
  async function createLinks(prefix: string, count: number): Promise<string[]> {
    const codes = Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(4, '0')}`);
    await testApp.app.get(PrismaService).link.createMany({
      data: codes.map((code) => ({ code, url: `https://example.com/${prefix}/${code}` })),
    });
    return codes;
  }

  /** `clicks` clicks of one day, half of them from news.example. */
  const onDay = (clicks: number): CodeTally =>
    new Map([
      [
        '2026-11-24',
        {
          clicks,
          bots: 0,
          referrers: new Map([['news.example', Math.ceil(clicks / 2)]]),
          labels: new Map([
            ['country:NL', clicks],
            ['device:mobile', clicks],
          ]),
        },
      ],
    ]);

  async function clicksOf(codes: string[]): Promise<number[]> {
    const rows = await testApp.app.get(PrismaService).link.findMany({ where: { code: { in: codes } } });
    const clicks = new Map(rows.map((row) => [row.code, row.clicks]));
    return codes.map((code) => clicks.get(code) ?? -1);
  }

  it('writes a batch of many codes in one go, each with its own count, skipping codes that no longer exist', async () => {
    const codes = await createLinks('batch', 40);
    const counts = codes.map((code, i) => [code, i + 1] as const);

    await testApp.app
      .get<ClickSink, PostgresClickSink>(ClickSink)
      .addClicks([...counts.map(([code, clicks]) => [code, onDay(clicks)] as const), ['gone4ever', onDay(3)]]);

    expect(await clicksOf(codes)).toEqual(counts.map(([, clicks]) => clicks));
    const prisma = testApp.app.get(PrismaService);
    const daily = await prisma.linkDailyClicks.findMany({ where: { code: { in: codes } }, orderBy: { code: 'asc' } });
    expect(daily.map((row) => [row.code, row.day, row.clicks])).toEqual(
      counts.map(([code, clicks]) => [code, '2026-11-24', clicks]),
    );
    const hosts = await prisma.linkDailyReferrer.findMany({ where: { code: { in: codes } }, orderBy: { code: 'asc' } });
    expect(hosts.map((row) => [row.code, row.host, row.clicks])).toEqual(
      counts.map(([code, clicks]) => [code, 'news.example', Math.ceil(clicks / 2)]),
    );
    const labels = await prisma.linkDailyLabel.findMany({
      where: { code: { in: codes } },
      orderBy: [{ code: 'asc' }, { dimension: 'asc' }],
    });
    expect(labels.map((row) => [row.code, row.dimension, row.label, row.clicks])).toEqual(
      counts.flatMap(([code, clicks]) => [
        [code, 'country', 'NL', clicks],
        [code, 'device', 'mobile', clicks],
      ]),
    );
    expect(await prisma.linkDailyClicks.count({ where: { code: 'gone4ever' } })).toBe(0);
    expect(await prisma.linkDailyLabel.count({ where: { code: 'gone4ever' } })).toBe(0);
  });

  it('writes concurrent batches of the same codes, given in opposite orders, without a deadlock', async () => {
    const codes = await createLinks('both', 2000);
    const counts = codes.map((code) => [code, onDay(1)] as const);
    const repository = testApp.app.get<ClickSink, PostgresClickSink>(ClickSink);

    for (let round = 0; round < 5; round++) {
      await Promise.all([repository.addClicks(counts), repository.addClicks([...counts].reverse())]);
    }

    expect(await clicksOf(codes)).toEqual(codes.map(() => 10));
    const labelled = await testApp.app.get(PrismaService).linkDailyLabel.groupBy({
      by: ['clicks'],
      where: { code: { in: codes } },
      _count: true,
    });
    expect(labelled).toEqual([{ clicks: 10, _count: codes.length * 2 }]);
  });

  it("adds up two instances' labelled clicks of the same link", async () => {
    const [code] = await createLinks('pair', 1);
    const second = await startTestApp({}, database);
    try {
      const iphone =
        'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.5 Mobile/15E148 Safari/604.1';
      for (const app of [testApp, second]) {
        const counter = app.app.get(ClickCounter);
        counter.record(code, 'https://news.example/', iphone, undefined, '193.0.6.139');
        counter.record(code, undefined, 'curl/8.5.0', undefined, '193.0.6.139');
        await counter.flush();
      }
      const labels = await testApp.app.get(PrismaService).linkDailyLabel.findMany({ where: { code } });
      expect(Object.fromEntries(labels.map((row) => [`${row.dimension}:${row.label}`, row.clicks]))).toEqual({
        'country:NL': 2,
        'device:mobile': 2,
        'browser:Safari': 2,
        'os:iOS': 2,
      });
      const daily = await testApp.app.get(PrismaService).linkDailyClicks.findMany({ where: { code } });
      expect(daily.map((row) => [row.clicks, row.bots])).toEqual([[4, 2]]);
    } finally {
      await second.close();
    }
  });
});
