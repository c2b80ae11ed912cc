import { serializeTally, type ClickTally, type DayTally } from './click-tally.js';
import { mergeBatches, packLoggedTexts, packTally, parsePackedTally, type PackedBatch } from './packed-tally.js';

function day(
  clicks: number,
  bots: number,
  referrers: Array<[string, number]>,
  labels: Array<[string, number]>,
): DayTally {
  return { clicks, bots, referrers: new Map(referrers), labels: new Map(labels) };
}

const tally: ClickTally = new Map([
  [
    'abc1234',
    new Map([
      ['2026-11-23', day(4, 4, [], [])],
      [
        '2026-11-24',
        day(
          6,
          1,
          [
            ['news.example', 3],
            ['(direct)', 2],
          ],
          [
            ['country:DE', 5],
            ['browser:Firefox', 5],
          ],
        ),
      ],
    ]),
  ],
  ['other00', new Map([['2026-11-24', day(1, 0, [['(direct)', 1]], [['country:FR', 1]])]])],
]);

describe('packed batches', () => {
  const tallies = (batch: PackedBatch): ClickTally =>
    new Map([...batch.codes()].map((code) => [code, batch.tally(code)]));

  it('unpack to the tally they were packed from, whether packed from Maps or from the click log', () => {
    const logged = serializeTally(tally);
    const picked = (JSON.parse(logged) as Array<[string, unknown]>).map(([code, days]): [string, string] => [
      code,
      JSON.stringify(days),
    ]);
    for (const sut of [
      packTally(tally),
      parsePackedTally(logged, '2026-11-25'),
      packLoggedTexts(picked, '2026-11-25'),
    ]) {
      expect(tallies(sut)).toEqual(tally);
      expect(sut.size).toBe(2);
      expect(sut.clicks('abc1234')).toBe(10);
      expect(sut.clicks('other00')).toBe(1);
      expect(sut.hosts).toEqual(['news.example', '(direct)']);
    }
  });

  it("hand a code's days to a sink in order, its hosts and labels only for the days it takes", () => {
    const seen: string[] = [];
    const sink = {
      day: (date: string, clicks: number, bots: number) => {
        seen.push(`day ${date} ${clicks} ${bots}`);
        return date >= '2026-11-24';
      },
      referrer: (host: string, clicks: number) => void seen.push(`referrer ${host} ${clicks}`),
      label: (key: string, clicks: number) => void seen.push(`label ${key} ${clicks}`),
    };

    packTally(tally).addTo('abc1234', sink);
    packTally(tally).addTo('unknown', sink);

    expect(seen).toEqual([
      'day 2026-11-23 4 4',
      'day 2026-11-24 6 1',
      'referrer news.example 3',
      'referrer (direct) 2',
      'label country:DE 5',
      'label browser:Firefox 5',
    ]);
  });

  it('answer nothing for a code they do not hold', () => {
    const sut = packTally(tally);

    expect(sut.has('nothere')).toBe(false);
    expect(sut.clicks('nothere')).toBe(0);
    expect(sut.tally('nothere')).toEqual(new Map());
  });

  it('find each of many codes, of any length and alphabet, and none that is only a prefix or an extension of one', () => {
    // Enough codes for the hash table's probes to collide and wrap, some one character apart.
    const codes = [...Array.from({ length: 5000 }, (_, i) => `c${i.toString(36)}`), 'my-alias', 'café', 'ссылка', '😀'];
    const counts: ClickTally = new Map(
      codes.map((code, i) => [code, new Map([['2026-11-24', day(i + 1, 0, [], [])]])]),
    );

    const sut = packTally(counts);

    expect(sut.size).toBe(codes.length);
    expect([...sut.codes()]).toEqual(codes);
    codes.forEach((code, i) => expect(sut.clicks(code)).toBe(i + 1));
    for (const absent of ['c', 'my-alia', 'my-aliass', 'cafe', 'ссылк', '😁', '', 'c0c1']) {
      expect(sut.has(absent)).toBe(false);
    }
  });

  it('read batches logged before daily counts existed: their day, no referrer', () => {
    const sut = parsePackedTally('[["abc1234",7],["other00",[["2026-11-24",2,[["news.example",2]]]]]]', '2026-11-20');

    expect(sut.tally('abc1234')).toEqual(new Map([['2026-11-20', day(7, 0, [], [])]]));
    expect(sut.tally('other00')).toEqual(new Map([['2026-11-24', day(2, 0, [['news.example', 2]], [])]]));
    expect(packLoggedTexts([['abc1234', '7']], '2026-11-20').tally('abc1234')).toEqual(
      new Map([['2026-11-20', day(7, 0, [], [])]]),
    );
  });

  it('read batches logged before visitors were labelled: no labels', () => {
    const sut = parsePackedTally('[["abc1234",[["2026-11-24",4,[["(direct)",3]],1]]]]', '2026-11-24');

    expect(sut.tally('abc1234')).toEqual(new Map([['2026-11-24', day(4, 1, [['(direct)', 3]], [])]]));
  });

  it('keep counts above 65,535 and hosts beyond the first', () => {
    const big: ClickTally = new Map([
      ['abc1234', new Map([['2026-11-24', day(100_000, 70_000, [['a.example', 30_000]], [['os:Linux', 30_000]])]])],
      ['other00', new Map([['2026-11-24', day(1, 0, [['b.example', 1]], [])]])],
    ]);

    expect(tallies(packTally(big))).toEqual(big);
    expect(packTally(big).hosts).toEqual(['a.example', 'b.example']);
  });

  it('hold each distinct tally of a batch once, shared by the codes that have it', () => {
    const once = (clicks: number) =>
      new Map([['2026-11-24', day(clicks, 0, [['(direct)', clicks]], [['os:Linux', clicks]])]]);
    const codes = (n: number, clicks: number): ClickTally =>
      new Map(Array.from({ length: n }, (_, i) => [`c${String(i).padStart(6, '0')}`, once(clicks)]));
    const alike = packTally(codes(1000, 1));
    const varied = packTally(
      new Map(Array.from({ length: 1000 }, (_, i) => [`c${String(i).padStart(6, '0')}`, once(i + 1)])),
    );

    // A run of 1 + 5 + 2 + 2 numbers: 1,000 of them when each differs, one when all are alike.
    expect(runLength(varied)).toBe(10_000);
    expect(runLength(alike)).toBe(10);
    expect(alike.tally('c000999')).toEqual(once(1));
    expect(varied.tally('c000999')).toEqual(once(1000));
  });

  it('add up one code over several batches by day, host and label', () => {
    const first = packTally(tally);
    const second = packTally(
      new Map([['other00', new Map([['2026-11-24', day(2, 1, [['a.example', 1]], [['country:FR', 1]])]])]]),
    );

    expect(mergeBatches('other00', [first, second])).toEqual(
      new Map([
        [
          '2026-11-24',
          day(
            3,
            1,
            [
              ['(direct)', 1],
              ['a.example', 1],
            ],
            [['country:FR', 2]],
          ),
        ],
      ]),
    );
  });
});

/** The numbers a packed batch holds (its private typed array). */
function runLength(batch: PackedBatch): number {
  return (batch as unknown as { runs: Uint32Array }).runs.length;
}
