import { jest } from '@jest/globals';
import type { AppConfig } from '../config/app-config.js';
import type { PostgresPool } from '../database/postgres-pools.js';
import type { PrismaService } from '../database/prisma.service.js';
import type { SqliteBackgroundWriter } from '../database/sqlite-background-writer.js';
import { ClickCounter, MAX_AGENTS_PER_DAY, MAX_CLIENTS_PER_AGENT } from './click-counter.js';
import { ClickSink } from './click-sink.js';
import { MAX_HOSTS_PER_DAY, OTHER_HOSTS, totalClicks, type ClickTally } from './click-tally.js';
import { LoggedClicks } from './logged-clicks.js';
import { parsePackedTally } from './packed-tally.js';
import { CLICK_FLUSH_BATCH_SIZE, PostgresClickSink } from './postgres-click-sink.js';
import { FOLD_AFTER_LOGGED_CODES, FOLD_AFTER_MS, FOLD_SPREAD_SHARE, SqliteClickSink } from './sqlite-click-sink.js';

type Written = Array<readonly [string, number]>;
const config = { clickFlushIntervalMs: 1000 } as AppConfig;

function setup() {
  const written: Written[] = [];
  const addClicks = jest.fn((counts: Written) => {
    written.push([...counts]);
    return Promise.resolve();
  });
  const sink = new PostgresClickSink({} as PostgresPool);
  jest
    .spyOn(sink, 'addClicks')
    .mockImplementation((chunk) => addClicks(chunk.map(([code, days]) => [code, totalClicks(days)] as const)));
  const sut = new ClickCounter(sink, config);
  const totals = () => {
    const sum = new Map<string, number>();
    for (const [code, clicks] of written.flat()) sum.set(code, (sum.get(code) ?? 0) + clicks);
    return Object.fromEntries(sum);
  };
  return { sut, addClicks, written, totals };
}

/** A sink that records what it is given. */
class RecordingSink extends ClickSink {
  readonly batches: ClickTally[] = [];
  start = () => Promise.resolve();
  afterFlush = () => Promise.resolve();
  stop = () => Promise.resolve();
  write(batch: ClickTally): Promise<ClickTally> {
    this.batches.push(batch);
    return Promise.resolve(new Map());
  }
}

/** A person's browser: clicks without a user agent are bots'. */
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:145.0) Gecko/20100101 Firefox/145.0';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';

/** The labels of `clicks` clicks from FIREFOX with no known address. */
function firefoxOnLinux(clicks: number): Map<string, number> {
  return new Map([
    ['device:desktop', clicks],
    ['browser:Firefox', clicks],
    ['os:Linux', clicks],
    ['country:ZZ', clicks],
  ]);
}

describe('ClickCounter (by UTC day and referrer host)', () => {
  afterEach(() => jest.useRealTimers());

  it('counts each click on its UTC day and under its referrer host', async () => {
    jest.useFakeTimers({ now: Date.parse('2026-11-24T12:00:00Z') });
    const sink = new RecordingSink();
    const sut = new ClickCounter(sink, config);
    sut.record('a', 'https://News.Example/item?id=1', FIREFOX);
    sut.record('a', 'https://news.example/other', FIREFOX);
    sut.record('a', undefined, FIREFOX);
    sut.record('b', 'android-app://com.example.app/', FIREFOX);

    await sut.flush();

    expect(sink.batches[0]).toEqual(
      new Map([
        [
          'a',
          new Map([
            [
              '2026-11-24',
              {
                clicks: 3,
                bots: 0,
                referrers: new Map([
                  ['news.example', 2],
                  ['(direct)', 1],
                ]),
                labels: firefoxOnLinux(3),
              },
            ],
          ]),
        ],
        [
          'b',
          new Map([
            [
              '2026-11-24',
              { clicks: 1, bots: 0, referrers: new Map([['com.example.app', 1]]), labels: firefoxOnLinux(1) },
            ],
          ]),
        ],
      ]),
    );
  });

  it("counts bots' clicks apart (a missing User-Agent is a bot's), leaving them out of the referrers", async () => {
    jest.useFakeTimers({ now: Date.parse('2026-11-24T12:00:00Z') });
    const sink = new RecordingSink();
    const sut = new ClickCounter(sink, config);
    sut.record('a', 'https://chat.example/', 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)');
    sut.record('a', 'https://chat.example/', 'curl/8.5.0');
    sut.record('a', 'https://chat.example/', undefined);
    sut.record('a', 'https://news.example/', FIREFOX);

    await sut.flush();

    expect(sink.batches[0].get('a')?.get('2026-11-24')).toEqual({
      clicks: 4,
      bots: 3,
      referrers: new Map([['news.example', 1]]),
      labels: firefoxOnLinux(1),
    });
  });

  it('keeps at most MAX_HOSTS_PER_DAY referrer hosts per user agent until the flush, the rest as (other)', async () => {
    jest.useFakeTimers({ now: Date.parse('2026-11-24T12:00:00Z') });
    const sink = new RecordingSink();
    const sut = new ClickCounter(sink, config);
    for (let i = 0; i < MAX_HOSTS_PER_DAY + 30; i++) sut.record('a', `https://host${i}.example/`, FIREFOX);
    const seen = (
      sut as unknown as { pending: Map<string, Map<string, { agents: Map<string, { hosts: Map<string, number> }> }>> }
    ).pending;
    expect(seen.get('a')?.get('2026-11-24')?.agents.get(FIREFOX)?.hosts.size).toBe(MAX_HOSTS_PER_DAY + 1);

    await sut.flush();

    const tally = sink.batches[0].get('a')?.get('2026-11-24');
    expect(tally?.clicks).toBe(MAX_HOSTS_PER_DAY + 30);
    expect(tally?.referrers.get(OTHER_HOSTS)).toBe(30);
  });

  it('keeps at most MAX_AGENTS_PER_DAY user agents per code and day until the flush, labelling the rest at once', async () => {
    jest.useFakeTimers({ now: Date.parse('2026-11-24T12:00:00Z') });
    const sink = new RecordingSink();
    const sut = new ClickCounter(sink, config);
    const extra = 100;
    for (let i = 0; i < MAX_AGENTS_PER_DAY + extra; i++) {
      sut.record('a', undefined, i % 2 === 0 ? `${FIREFOX} build/${i}` : `curl/${i}`);
    }
    const seen = (sut as unknown as { pending: Map<string, Map<string, { agents: Map<string, unknown> }>> }).pending;
    expect(seen.get('a')?.get('2026-11-24')?.agents.size).toBe(MAX_AGENTS_PER_DAY);
    expect(sut.pendingClicks('a')).toBe(MAX_AGENTS_PER_DAY + extra);

    await sut.flush();

    expect(sink.batches[0].get('a')?.get('2026-11-24')).toEqual({
      clicks: MAX_AGENTS_PER_DAY + extra,
      bots: (MAX_AGENTS_PER_DAY + extra) / 2,
      referrers: new Map([['(direct)', (MAX_AGENTS_PER_DAY + extra) / 2]]),
      labels: firefoxOnLinux((MAX_AGENTS_PER_DAY + extra) / 2),
    });
  });

  it('answers the clicks pending per code and in all until the flush, a click on each side of midnight on its own day', async () => {
    jest.useFakeTimers({ now: Date.parse('2026-11-24T23:59:59.900Z') });
    const sink = new RecordingSink();
    const sut = new ClickCounter(sink, config);
    sut.record('a', 'https://news.example/', FIREFOX);
    sut.record('b', 'https://chat.example/', 'curl/8.5.0');
    expect([sut.pendingClicks('a'), sut.pendingClicks('b'), sut.pendingClicks('c'), sut.pendingTotal()]).toEqual([
      1, 1, 0, 2,
    ]);
    jest.setSystemTime(Date.parse('2026-11-25T00:00:00.000Z'));
    sut.record('a', undefined, FIREFOX);
    expect([sut.pendingClicks('a'), sut.pendingTotal()]).toEqual([2, 3]);

    await sut.flush();

    const person = (host: string) => ({
      clicks: 1,
      bots: 0,
      referrers: new Map([[host, 1]]),
      labels: firefoxOnLinux(1),
    });
    expect([...sink.batches[0].get('a')!]).toEqual([
      ['2026-11-24', person('news.example')],
      ['2026-11-25', person('(direct)')],
    ]);
    expect([...sink.batches[0].get('b')!]).toEqual([
      ['2026-11-24', { clicks: 1, bots: 1, referrers: new Map(), labels: new Map() }],
    ]);
    expect([sut.pendingClicks('a'), sut.pendingTotal()]).toEqual([0, 0]);
  });

  it('puts the clicks of a flush that spans midnight (UTC) each in its own day', async () => {
    jest.useFakeTimers({ now: Date.parse('2026-11-24T23:59:59.900Z') });
    const sink = new RecordingSink();
    const sut = new ClickCounter(sink, config);
    sut.record('a', undefined);
    sut.record('a', undefined);
    jest.setSystemTime(Date.parse('2026-11-25T00:00:00.000Z'));
    sut.record('a', undefined);

    await sut.flush();

    const days = sink.batches[0].get('a')!;
    expect([...days].map(([day, tally]) => [day, tally.clicks])).toEqual([
      ['2026-11-24', 2],
      ['2026-11-25', 1],
    ]);
  });
});

describe('ClickCounter (PostgreSQL: counts go straight into links)', () => {
  it('writes one aggregated count per code', async () => {
    const { sut, addClicks, written } = setup();
    sut.record('a');
    sut.record('a');
    sut.record('b');

    await sut.flush();

    expect(addClicks).toHaveBeenCalledTimes(1);
    expect(written[0]).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
    expect(sut.pendingClicks('a')).toBe(0);
  });

  it('writes nothing when nothing was counted', async () => {
    const { sut, addClicks } = setup();

    await sut.flush();

    expect(addClicks).not.toHaveBeenCalled();
  });

  it('keeps the counts of a failed flush for the next one', async () => {
    const { sut, addClicks, totals } = setup();
    sut.record('a');
    sut.record('a');
    addClicks.mockRejectedValueOnce(new Error('database is down'));

    await expect(sut.flush()).resolves.toBeUndefined();
    expect(sut.pendingClicks('a')).toBe(2);

    sut.record('a');
    await sut.flush();

    expect(totals()).toEqual({ a: 3 });
    expect(sut.pendingClicks('a')).toBe(0);
  });

  it('retries only the chunks that were not written', async () => {
    const { sut, addClicks, written, totals } = setup();
    const codes = Array.from({ length: CLICK_FLUSH_BATCH_SIZE + 10 }, (_, i) => `code${i}`);
    for (const code of codes) sut.record(code);
    // The first chunk is written, the second fails.
    let calls = 0;
    addClicks.mockImplementation((counts: Written) => {
      if (++calls === 2) return Promise.reject(new Error('lost connection'));
      written.push([...counts]);
      return Promise.resolve();
    });

    await sut.flush();

    // Chunks are taken in code order (see PostgresClickSink.addClicks).
    const inOrder = [...codes].sort();
    expect(sut.pendingClicks(inOrder[0])).toBe(0);
    expect(sut.pendingClicks(inOrder[CLICK_FLUSH_BATCH_SIZE])).toBe(1);
    await sut.flush();
    expect(Object.keys(totals())).toHaveLength(codes.length);
    expect(Object.values(totals()).every((clicks) => clicks === 1)).toBe(true);
  });

  it('counts clicks that arrive during a flush in the next one', async () => {
    const { sut, addClicks, totals } = setup();
    let release!: () => void;
    addClicks.mockImplementationOnce(
      async () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    );
    sut.record('a');
    const first = sut.flush();
    await Promise.resolve();
    sut.record('a');
    const second = sut.flush();
    release();

    await Promise.all([first, second]);

    // The first write was swallowed by the mock; the second carries only the new click.
    expect(addClicks).toHaveBeenCalledTimes(2);
    expect(totals()).toEqual({ a: 1 });
  });

  it('flushes on application shutdown and stops its timer', async () => {
    jest.useFakeTimers();
    try {
      const { sut, addClicks, totals } = setup();
      await sut.onApplicationBootstrap();
      sut.record('a');

      await sut.onApplicationShutdown();

      expect(totals()).toEqual({ a: 1 });
      sut.record('b');
      jest.advanceTimersByTime(5000);
      expect(addClicks).toHaveBeenCalledTimes(1);
    } finally {
      jest.useRealTimers();
    }
  });

  it('flushes on its interval', async () => {
    jest.useFakeTimers();
    try {
      const { sut, addClicks } = setup();
      await sut.onApplicationBootstrap();
      sut.record('a');

      jest.advanceTimersByTime(1000);
      await Promise.resolve();

      expect(addClicks).toHaveBeenCalledTimes(1);
      await sut.onApplicationShutdown();
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('ClickCounter (SQLite: counts go to the click log, added to links in bulk)', () => {
  /** The next fold stays under way until the returned function is called; it then adds batch 1. */
  function holdNextFold(foldClickLog: jest.Mock<(spreadMs: number) => Promise<number>>): () => void {
    let release!: () => void;
    foldClickLog.mockImplementationOnce(
      () =>
        new Promise<number>((resolve) => {
          release = () => resolve(1);
        }),
    );
    return () => release();
  }

  function setup() {
    const logged: Array<{ id: number; counts: Written; closedAt: Date }> = [];
    let nextId = 1;
    const logClicks = jest.fn((counts: Written, closedAt: Date) => {
      const id = nextId++;
      logged.push({ id, counts: [...counts], closedAt });
      return Promise.resolve(id);
    });
    const foldClickLog = jest.fn((_spreadMs: number) => Promise.resolve(nextId - 1));
    const hurryClickFold = jest.fn(() => Promise.resolve());
    const loggedClickBatches = jest.fn(() =>
      Promise.resolve([] as Array<{ id: number; loggedAt: Date; counts: string }>),
    );
    const writer = {
      runReturningRowid: async (_sql: string, [loggedAt, json]: [string, string]) => {
        const batch = parsePackedTally(json, '');
        const counts = [...batch.codes()].map((code) => [code, batch.clicks(code)] as const);
        return { changes: 1, lastInsertRowid: await logClicks(counts, new Date(loggedAt)) };
      },
      runTask: (_task: unknown, { spreadMs }: { spreadMs: number }) => foldClickLog(spreadMs),
      hurry: hurryClickFold,
    } as unknown as SqliteBackgroundWriter;
    const prisma = { clickBatch: { findMany: loggedClickBatches } } as unknown as PrismaService;
    const loggedClicks = new LoggedClicks();
    const sink = new SqliteClickSink(prisma, writer, loggedClicks);
    const sut = new ClickCounter(sink, config);
    const apiClicks = (code: string) =>
      loggedClicks.clicksNotIn({ code, createdAt: new Date(0), clicksThroughBatch: 0 });
    return { sut, sink, logClicks, foldClickLog, hurryClickFold, loggedClickBatches, logged, loggedClicks, apiClicks };
  }

  it('logs each flush as one batch, which the API counts at once; links are not written', async () => {
    const { sut, logClicks, foldClickLog, logged, apiClicks } = setup();
    sut.record('a');
    sut.record('a');
    sut.record('b');

    await sut.flush();

    expect(logClicks).toHaveBeenCalledTimes(1);
    expect(logged[0].counts).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
    expect(apiClicks('a')).toBe(2);
    expect(foldClickLog).not.toHaveBeenCalled();
  });

  it('keeps the counts of a batch that could not be logged for the next flush', async () => {
    const { sut, logClicks, logged, apiClicks } = setup();
    sut.record('a');
    logClicks.mockRejectedValueOnce(new Error('SQLITE_BUSY'));

    await sut.flush();
    expect(sut.pendingClicks('a')).toBe(1);
    expect(apiClicks('a')).toBe(0);

    sut.record('a');
    await sut.flush();
    expect(logged.map((batch) => batch.counts)).toEqual([[['a', 2]]]);
    expect(apiClicks('a')).toBe(2);
  });

  it(`folds once ${FOLD_AFTER_LOGGED_CODES} code counts are logged, and forgets the folded batches`, async () => {
    const { sut, foldClickLog, loggedClicks } = setup();
    for (let i = 0; i < FOLD_AFTER_LOGGED_CODES - 1; i++) sut.record(`c${i}`);
    await sut.flush();
    expect(foldClickLog).not.toHaveBeenCalled();

    sut.record('one-more');
    await sut.flush();

    expect(foldClickLog).toHaveBeenCalledTimes(1);
    expect(loggedClicks.size).toBe(0);
  });

  it(`folds once the oldest logged batch is ${FOLD_AFTER_MS / 1000} s old, even with no new clicks, spread over ${FOLD_SPREAD_SHARE} of that time`, async () => {
    jest.useFakeTimers();
    try {
      const { sut, foldClickLog, loggedClicks } = setup();
      sut.record('a');
      await sut.flush();

      jest.setSystemTime(Date.now() + FOLD_AFTER_MS - 1);
      await sut.flush();
      expect(foldClickLog).not.toHaveBeenCalled();

      jest.setSystemTime(Date.now() + 1);
      await sut.flush();
      expect(foldClickLog).toHaveBeenCalledTimes(1);
      expect(foldClickLog).toHaveBeenCalledWith(FOLD_SPREAD_SHARE * FOLD_AFTER_MS);
      expect(loggedClicks.size).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('keeps the batches of a failed fold, still counted by the API, for the next fold', async () => {
    const { sut, sink, foldClickLog, loggedClicks, apiClicks } = setup();
    sut.record('a');
    await sut.flush();
    foldClickLog.mockRejectedValueOnce(new Error('disk I/O error'));

    await sink.fold();
    expect(loggedClicks.size).toBe(1);
    expect(apiClicks('a')).toBe(1);

    await sink.fold();
    expect(loggedClicks.size).toBe(0);
  });

  it('counts the batches a crash left in the log from start-up, and folds everything at shutdown', async () => {
    const { sut, loggedClickBatches, logClicks, foldClickLog, logged, apiClicks } = setup();
    // Logged before daily counts existed: [[code, clicks], …].
    loggedClickBatches.mockResolvedValueOnce([{ id: 7, loggedAt: new Date(), counts: '[["a",4]]' }]);
    // Ids go on after the leftover batch; the fold adds both.
    logClicks.mockImplementationOnce((counts: Written, closedAt: Date) => {
      logged.push({ id: 8, counts: [...counts], closedAt });
      return Promise.resolve(8);
    });
    foldClickLog.mockResolvedValueOnce(8);

    await sut.onApplicationBootstrap();
    expect(apiClicks('a')).toBe(4);
    sut.record('a');
    await sut.onApplicationShutdown();

    expect(logged.map((batch) => batch.counts)).toEqual([[['a', 1]]]);
    // At shutdown, as fast as it can.
    expect(foldClickLog).toHaveBeenCalledTimes(1);
    expect(foldClickLog).toHaveBeenCalledWith(0);
    expect(apiClicks('a')).toBe(0);
  });

  it('has a paced fold under way finish at full speed at shutdown, then folds what it left unpaced', async () => {
    const { sut, sink, foldClickLog, hurryClickFold, loggedClicks } = setup();
    sut.record('a');
    await sut.flush();
    const release = holdNextFold(foldClickLog);
    const paced = sink.fold(30_000);
    sut.record('b');
    hurryClickFold.mockImplementationOnce(() => {
      release();
      return Promise.resolve();
    });

    await sut.onApplicationShutdown();
    await paced;

    expect(hurryClickFold).toHaveBeenCalledTimes(1);
    expect(foldClickLog.mock.calls).toEqual([[30_000], [0]]);
    expect(loggedClicks.size).toBe(0);
  });

  it('logs new batches while a fold runs, and runs one fold at a time', async () => {
    const { sut, sink, foldClickLog, logClicks, loggedClicks, apiClicks } = setup();
    sut.record('a');
    await sut.flush();
    const release = holdNextFold(foldClickLog);
    const first = sink.fold();
    const second = sink.fold();
    sut.record('a');
    await sut.flush();
    expect(logClicks).toHaveBeenCalledTimes(2);
    expect(apiClicks('a')).toBe(2);
    expect(foldClickLog).toHaveBeenCalledTimes(1);

    // The first fold added batch 1 only; the second adds batch 2, logged meanwhile.
    release();
    await first;
    expect(apiClicks('a')).toBe(1);
    await second;
    expect(foldClickLog).toHaveBeenCalledTimes(2);
    expect(loggedClicks.size).toBe(0);
  });

  describe('visitor labels', () => {
    const proxied = { clickFlushIntervalMs: 1000, trustProxy: true } as AppConfig;

    it("labels people's clicks by country (the first X-Forwarded-For entry behind a proxy), device, browser and system; bots' by nothing", async () => {
      jest.useFakeTimers({ now: Date.parse('2026-11-24T12:00:00Z') });
      const sink = new RecordingSink();
      const sut = new ClickCounter(sink, proxied);
      sut.record('a', undefined, IPHONE, '193.0.6.139, 10.0.0.1', '10.0.0.2');
      sut.record('a', undefined, IPHONE, '8.8.8.8', '10.0.0.2');
      sut.record('a', undefined, FIREFOX, undefined, '::ffff:8.8.4.4');
      sut.record('a', undefined, FIREFOX, 'garbage', '127.0.0.1');
      sut.record('a', undefined, 'curl/8.5.0', '193.0.6.139', '10.0.0.2');

      await sut.flush();

      expect(sink.batches[0].get('a')?.get('2026-11-24')?.labels).toEqual(
        new Map([
          ['device:mobile', 2],
          ['browser:Safari', 2],
          ['os:iOS', 2],
          ['country:NL', 1],
          ['country:US', 2],
          ['device:desktop', 2],
          ['browser:Firefox', 2],
          ['os:Linux', 2],
          ['country:ZZ', 1],
        ]),
      );
    });

    it('ignores X-Forwarded-For without a trusted proxy', async () => {
      const sink = new RecordingSink();
      const sut = new ClickCounter(sink, { ...proxied, trustProxy: false });
      sut.record('a', undefined, IPHONE, '193.0.6.139', '127.0.0.1');
      sut.record('a', undefined, IPHONE, '127.0.0.1', '8.8.8.8');

      await sut.flush();

      const labels = [...sink.batches[0].get('a')!.values()][0].labels;
      expect(labels.get('country:ZZ')).toBe(1);
      expect(labels.get('country:US')).toBe(1);
      expect(labels.get('country:NL')).toBeUndefined();
    });

    it(`keeps at most MAX_CLIENTS_PER_AGENT clients per user agent until the flush, looking the rest up at once`, async () => {
      jest.useFakeTimers({ now: Date.parse('2026-11-24T12:00:00Z') });
      const sink = new RecordingSink();
      const sut = new ClickCounter(sink, proxied);
      const clicks = MAX_CLIENTS_PER_AGENT + 50;
      // 8.8.x.y: all in the US.
      for (let i = 0; i < clicks; i++) sut.record('a', undefined, IPHONE, `8.8.${i >> 8}.${i & 0xff}`);
      const seen = (
        sut as unknown as {
          pending: Map<string, Map<string, { agents: Map<string, { clients: Map<string, number> }> }>>;
        }
      ).pending;
      expect(seen.get('a')?.get('2026-11-24')?.agents.get(IPHONE)?.clients.size).toBe(MAX_CLIENTS_PER_AGENT);

      await sut.flush();

      expect(sink.batches[0].get('a')?.get('2026-11-24')?.labels.get('country:US')).toBe(clicks);
    });

    it('stores no address or user agent, and takes hostile headers in its stride', async () => {
      const sink = new RecordingSink();
      const sut = new ClickCounter(sink, proxied);
      const hostile = [
        ['x'.repeat(10_000), 'y'.repeat(10_000)],
        [`${IPHONE}\u0000\r`, Array.from({ length: 1000 }, (_, i) => `10.0.${i >> 8}.${i & 0xff}`).join(', ')],
        [IPHONE, 'fe80::1%eth0, 8.8.8.8'],
        [IPHONE, '[2001:db8::1]:443'],
        [IPHONE, '\u0000garbage'],
      ] as const;
      for (const [agent, forwardedFor] of hostile)
        sut.record('a', 'https://x.example/', agent, forwardedFor, '193.0.6.139');

      await sut.flush();

      const tally = [...sink.batches[0].get('a')!.values()][0];
      expect(tally.clicks).toBe(hostile.length);
      const written = JSON.stringify([...tally.labels, ...tally.referrers]);
      for (const fact of ['193.0.6.139', '8.8.8.8', '10.0.', 'Mozilla', 'xxx', 'garbage'])
        expect(written).not.toContain(fact);
      for (const [key] of tally.labels)
        expect(key).toMatch(/^(country:[A-Z]{2}|device:[a-z]+|browser:[ -~]{1,40}|os:[ -~]{1,40})$/);
    });
  });
});

describe('ClickCounter flush listeners', () => {
  /** A sink that writes everything but the codes it is told to refuse. */
  class RefusingSink extends RecordingSink {
    constructor(private readonly refused: string[]) {
      super();
    }
    override write(batch: ClickTally): Promise<ClickTally> {
      this.batches.push(batch);
      return Promise.resolve(new Map([...batch].filter(([code]) => this.refused.includes(code))));
    }
  }

  it('tells each listener, once per flush, the clicks and bots it wrote per code, since the flush before', async () => {
    const sut = new ClickCounter(new RefusingSink(['lost']), config);
    const told: Array<{ written: Record<string, unknown>; from: Date }> = [];
    sut.onFlushed((written, from) => void told.push({ written: Object.fromEntries(written()), from }));
    const before = new Date();
    await sut.flush();

    sut.record('abc', undefined, FIREFOX);
    sut.record('abc', undefined, FIREFOX);
    sut.record('abc');
    sut.record('xyz', undefined, 'curl/8.5.0');
    sut.record('lost', undefined, FIREFOX);
    await sut.flush();

    expect(told).toHaveLength(1);
    expect(told[0].written).toEqual({ abc: { clicks: 3, bots: 1 }, xyz: { clicks: 1, bots: 1 } });
    expect(told[0].from.getTime()).toBeGreaterThanOrEqual(before.getTime());
  });

  it('keeps flushing when a listener fails', async () => {
    const sink = new RecordingSink();
    const sut = new ClickCounter(sink, config);
    sut.onFlushed(() => Promise.reject(new Error('listener down')));

    sut.record('abc', undefined, FIREFOX);
    await expect(sut.flush()).resolves.toBeUndefined();
    expect(sink.batches).toHaveLength(1);
  });
});
