import { serializeTally, type ClickTally, type DayTally } from './click-tally.js';
import {
  mergePacked,
  packTally,
  packedClicks,
  packedHosts,
  parsePackedTally,
  unpackCodeTally,
} from './packed-tally.js';

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

describe('packed tallies', () => {
  it('unpack to the tally they were packed from, whether packed from Maps or from the click log', () => {
    for (const sut of [packTally(tally), parsePackedTally(serializeTally(tally), '2026-11-25')]) {
      expect(new Map([...sut].map(([code, packed]) => [code, unpackCodeTally(packed)]))).toEqual(tally);
      expect(packedClicks(sut.get('abc1234')!)).toBe(10);
      expect([...packedHosts(sut.get('abc1234')!)]).toEqual(['news.example', '(direct)']);
    }
  });

  it('read batches logged before daily counts existed: their day, no referrer', () => {
    const sut = parsePackedTally('[["abc1234",7],["other00",[["2026-11-24",2,[["news.example",2]]]]]]', '2026-11-20');

    expect(unpackCodeTally(sut.get('abc1234')!)).toEqual(new Map([['2026-11-20', day(7, 0, [], [])]]));
    expect(unpackCodeTally(sut.get('other00')!)).toEqual(
      new Map([['2026-11-24', day(2, 0, [['news.example', 2]], [])]]),
    );
  });

  it('read batches logged before visitors were labelled: no labels', () => {
    const sut = parsePackedTally('[["abc1234",[["2026-11-24",4,[["(direct)",3]],1]]]]', '2026-11-24');

    expect(unpackCodeTally(sut.get('abc1234')!)).toEqual(new Map([['2026-11-24', day(4, 1, [['(direct)', 3]], [])]]));
  });

  it('add up one code over several batches by day, host and label', () => {
    const first = packTally(tally).get('other00')!;
    const second = packTally(
      new Map([['other00', new Map([['2026-11-24', day(2, 1, [['a.example', 1]], [['country:FR', 1]])]])]]),
    ).get('other00')!;

    expect(mergePacked([first, second])).toEqual(
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
