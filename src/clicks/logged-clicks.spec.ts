import { MAX_HOSTS_PER_DAY, OTHER_HOSTS, type ClickTally, type CodeTally } from './click-tally.js';
import { LoggedClicks, type LinkClicks } from './logged-clicks.js';
import { packTally, type DaySink, type PackedBatch } from './packed-tally.js';

/** One batch: code → clicks, all on 2026-11-24 from news.example, packed as the sink logs it. */
function counts(entries: Array<[string, number]>): PackedBatch {
  const tally: ClickTally = new Map(
    entries.map(([code, clicks]) => [
      code,
      new Map([['2026-11-24', { clicks, bots: 0, referrers: new Map([['news.example', clicks]]), labels: new Map() }]]),
    ]),
  );
  return packTally(tally);
}

const at = (second: number) => new Date(Date.UTC(2026, 10, 24, 10, 0, second));

function link(overrides: Partial<LinkClicks> = {}): LinkClicks {
  return { code: 'abc1234', createdAt: at(0), clicksThroughBatch: 0, ...overrides };
}

describe('LoggedClicks', () => {
  function withBatches() {
    const sut = new LoggedClicks();
    sut.add({
      id: 1,
      closedAt: at(1),
      counts: counts([
        ['abc1234', 2],
        ['other00', 5],
      ]),
    });
    sut.add({ id: 2, closedAt: at(2), counts: counts([['abc1234', 3]]) });
    sut.add({ id: 3, closedAt: at(3), counts: counts([['abc1234', 4]]) });
    return sut;
  }

  it('adds up the batches a row does not include yet', () => {
    const sut = withBatches();

    expect(sut.clicksNotIn(link())).toBe(9);
    expect(sut.clicksNotIn(link({ clicksThroughBatch: 2 }))).toBe(4);
    expect(sut.clicksNotIn(link({ clicksThroughBatch: 3 }))).toBe(0);
    expect(sut.clicksNotIn(link({ code: 'other00' }))).toBe(5);
    expect(sut.clicksNotIn(link({ code: 'unknown' }))).toBe(0);
  });

  it('finds a code in whichever batches have it, after batches without it', () => {
    const sut = withBatches();
    sut.add({ id: 4, closedAt: at(4), counts: counts([['late000', 6]]) });
    sut.add({ id: 5, closedAt: at(5), counts: counts([['other00', 1]]) });
    sut.add({ id: 6, closedAt: at(6), counts: counts([['late000', 1]]) });

    expect(sut.clicksNotIn(link({ code: 'late000' }))).toBe(7);
    expect(sut.clicksNotIn(link({ code: 'late000', clicksThroughBatch: 4 }))).toBe(1);
    expect(sut.clicksNotIn(link({ code: 'other00' }))).toBe(6);
    expect(sut.clicksNotIn(link({ code: 'other00', clicksThroughBatch: 1 }))).toBe(1);
  });

  it('gives the same clicks by day and referrer host', () => {
    const sut = withBatches();

    expect(sut.tallyNotIn(link({ clicksThroughBatch: 1 }))).toEqual(
      new Map([['2026-11-24', { clicks: 7, bots: 0, referrers: new Map([['news.example', 7]]), labels: new Map() }]]),
    );
    expect(sut.tallyNotIn(link({ code: 'unknown' }))).toEqual(new Map());
  });

  /**
   * What `addNotIn` hands a sink, added up as a tally (the days from `fromDay` on), and how many
   * times a day was handed in again (once per further batch: the batches were not merged).
   */
  function handedIn(sut: LoggedClicks, clicks: LinkClicks, fromDay = ''): { tally: CodeTally; repeats: number } {
    const tally: CodeTally = new Map();
    let repeats = 0;
    let current = { clicks: 0, bots: 0, referrers: new Map<string, number>(), labels: new Map<string, number>() };
    const add = (counts: Map<string, number>, key: string, more: number) =>
      void counts.set(key, (counts.get(key) ?? 0) + more);
    const sink: DaySink = {
      day(day, dayClicks, bots) {
        if (day < fromDay) return false;
        const known = tally.get(day);
        if (known) {
          repeats++;
          known.clicks += dayClicks;
          known.bots += bots;
          current = known;
        } else {
          current = { clicks: dayClicks, bots, referrers: new Map(), labels: new Map() };
          tally.set(day, current);
        }
        return true;
      },
      referrer: (host, hostClicks) => add(current.referrers, host, hostClicks),
      label: (key, labelClicks) => add(current.labels, key, labelClicks),
    };
    sut.addNotIn(clicks, sink);
    return { tally, repeats };
  }

  it('hands a sink the same days as the tally, from one batch or several', () => {
    const sut = withBatches();

    for (const clicks of [
      link(),
      link({ clicksThroughBatch: 2 }),
      link({ code: 'other00' }),
      link({ code: 'unknown' }),
    ]) {
      expect(handedIn(sut, clicks).tally).toEqual(sut.tallyNotIn(clicks));
    }
    expect(handedIn(sut, link()).tally.get('2026-11-24')?.clicks).toBe(9);
    expect(handedIn(sut, link(), '2026-11-25').tally).toEqual(new Map());
    // Few referrer hosts: batch by batch, no tally built (the day handed in once per batch).
    expect(handedIn(sut, link()).repeats).toBeGreaterThan(0);
  });

  it("bounds a day's referrer hosts over several batches as the fold does", () => {
    const sut = new LoggedClicks();
    const hosts = (from: number) =>
      new Map(Array.from({ length: MAX_HOSTS_PER_DAY }, (_, i) => [`h${from + i}.example`, 1] as [string, number]));
    for (const id of [1, 2]) {
      const day = { clicks: MAX_HOSTS_PER_DAY, bots: 0, referrers: hosts(id * 100), labels: new Map<string, number>() };
      sut.add({ id, closedAt: at(id), counts: packTally(new Map([['abc1234', new Map([['2026-11-24', day]])]])) });
    }

    const { tally: handed, repeats } = handedIn(sut, link());

    expect(handed).toEqual(sut.tallyNotIn(link()));
    expect(repeats).toBe(0);
    expect(handed.get('2026-11-24')?.referrers.size).toBe(MAX_HOSTS_PER_DAY + 1);
    expect(handed.get('2026-11-24')?.referrers.get(OTHER_HOSTS)).toBe(MAX_HOSTS_PER_DAY);
  });

  it('leaves out batches closed before the link was created: they counted a deleted link with that code', () => {
    const sut = withBatches();

    expect(sut.clicksNotIn(link({ createdAt: new Date(at(1).getTime() + 1) }))).toBe(7);
    expect(sut.clicksNotIn(link({ createdAt: at(3) }))).toBe(4);
  });

  it('forgets folded batches, and what they held', () => {
    const sut = withBatches();
    expect(sut.size).toBe(4);
    expect(sut.oldestClosedAt).toEqual(at(1));

    sut.dropThrough(2);

    expect(sut.size).toBe(1);
    expect(sut.oldestClosedAt).toEqual(at(3));
    // A row the fold updated says so; one it did not touch had no clicks in those batches.
    expect(sut.clicksNotIn(link({ clicksThroughBatch: 2 }))).toBe(4);
    expect(sut.clicksNotIn(link({ code: 'other00', clicksThroughBatch: 2 }))).toBe(0);

    sut.dropThrough(3);
    expect(sut.size).toBe(0);
    expect(sut.oldestClosedAt).toBeUndefined();
  });

  it('keeps every day, referrer host and label of a batch as it was given', () => {
    const sut = new LoggedClicks();
    const day = (
      clicks: number,
      bots: number,
      referrers: Array<[string, number]>,
      labels: Array<[string, number]>,
    ) => ({
      clicks,
      bots,
      referrers: new Map(referrers),
      labels: new Map(labels),
    });
    const days = new Map([
      ['2026-11-23', day(5, 5, [], [])],
      [
        '2026-11-24',
        day(
          9,
          2,
          [
            ['news.example', 4],
            ['(direct)', 3],
          ],
          [
            ['country:DE', 7],
            ['device:mobile', 7],
          ],
        ),
      ],
    ]);
    sut.add({ id: 1, closedAt: at(1), counts: packTally(new Map([['abc1234', days]])) });
    sut.add({
      id: 2,
      closedAt: at(2),
      counts: packTally(new Map([['abc1234', new Map([['2026-11-24', day(1, 0, [['a.example', 1]], [])]])]])),
    });

    expect(sut.tallyNotIn(link())).toEqual(
      new Map([
        ['2026-11-23', day(5, 5, [], [])],
        [
          '2026-11-24',
          day(
            10,
            2,
            [
              ['news.example', 4],
              ['(direct)', 3],
              ['a.example', 1],
            ],
            [
              ['country:DE', 7],
              ['device:mobile', 7],
            ],
          ),
        ],
      ]),
    );
    expect(sut.clicksNotIn(link())).toBe(15);
    expect(sut.hosts().sort()).toEqual(['(direct)', 'a.example', 'news.example']);

    sut.dropThrough(1);

    expect(sut.hosts()).toEqual(['a.example']);
    expect(sut.tallyNotIn(link({ clicksThroughBatch: 1 }))).toEqual(
      new Map([['2026-11-24', day(1, 0, [['a.example', 1]], [])]]),
    );
  });
});
