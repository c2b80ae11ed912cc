import { clickChart } from './click-chart.js';

const days = (...clicks: number[]) =>
  clicks.map((count, index) => ({ date: `2026-11-${String(index + 1).padStart(2, '0')}`, clicks: count, bots: 0 }));

describe('clickChart', () => {
  it('scales the bars to the busiest day, oldest day on the left', () => {
    const sut = clickChart(days(0, 5, 10));

    expect(sut.max).toBe(10);
    expect(sut.total).toBe(15);
    expect(sut.bars.map((bar) => bar.height)).toEqual([1, 80, 160]);
    expect(sut.bars.map((bar) => bar.y)).toEqual([159, 80, 0]);
    expect(sut.bars[0].x).toBeLessThan(sut.bars[1].x);
    expect(sut.bars.every((bar) => bar.x + bar.width <= sut.width)).toBe(true);
  });

  it('summarises the window in words for screen readers', () => {
    const sut = clickChart(days(1, 3, 1));

    expect(sut.summary).toBe('5 clicks from 2026-11-01 to 2026-11-03; the busiest day was 2026-11-02 with 3 clicks.');
    expect(sut.first).toBe('2026-11-01');
    expect(sut.last).toBe('2026-11-03');
  });

  it('draws an all-zero window as flat bars without dividing by zero', () => {
    const sut = clickChart(days(0, 0));

    expect(sut.max).toBe(1);
    expect(sut.busiest).toBeUndefined();
    expect(sut.bars.every((bar) => bar.height === 1 && Number.isFinite(bar.y))).toBe(true);
    expect(sut.summary).toBe('No clicks from 2026-11-01 to 2026-11-02.');
  });

  it("stacks the bots' clicks on top of people's, and says so", () => {
    const sut = clickChart([
      { date: '2026-11-01', clicks: 10, bots: 4 },
      { date: '2026-11-02', clicks: 5, bots: 0 },
    ]);

    expect(sut.bots).toBe(4);
    expect(sut.bars[0]).toMatchObject({ y: 0, height: 160, botY: 0, botHeight: 64 });
    expect(sut.bars[1]).toMatchObject({ height: 80, botHeight: 0 });
    expect(sut.bars[0].title).toBe('2026-11-01: 10 clicks, 4 from bots');
    expect(sut.bars[1].title).toBe('2026-11-02: 5 clicks');
    expect(sut.summary).toBe(
      '15 clicks from 2026-11-01 to 2026-11-02 (4 from bots); the busiest day was 2026-11-01 with 10 clicks.',
    );
  });

  it('gives 30 days bars that fit the width with a gap between them', () => {
    const sut = clickChart(days(...Array.from({ length: 30 }, (_, i) => i)));

    expect(sut.bars).toHaveLength(30);
    expect(sut.bars[1].x - (sut.bars[0].x + sut.bars[0].width)).toBeCloseTo(2);
  });
});
