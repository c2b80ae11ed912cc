import { monthSplit } from './clicks.repository.js';
import { windowDays } from './clicks.service.js';

describe('monthSplit', () => {
  it.each([
    ['2026-11-01', { day: '2026-11-01', month: '2026-11' }],
    ['2026-11-02', { day: '2026-12-01', month: '2026-12' }],
    ['2026-11-30', { day: '2026-12-01', month: '2026-12' }],
    ['2025-12-15', { day: '2026-01-01', month: '2026-01' }],
    ['2024-02-29', { day: '2024-03-01', month: '2024-03' }],
    ['2026-01-01', { day: '2026-01-01', month: '2026-01' }],
  ])('reads a window from %s by day before %o, by month from then on', (fromDay, split) => {
    expect(monthSplit(fromDay)).toEqual(split);
  });
});

describe('windowDays', () => {
  it('lists the last n UTC days, today last, across months, years and leap days', () => {
    const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    for (const now of [
      '2026-11-26T23:59:59Z',
      '2026-03-01T00:00:00Z',
      '2024-03-01T12:00:00Z',
      '2027-01-02T05:00:00Z',
    ]) {
      const at = new Date(now);
      for (const days of [1, 2, 31, 366]) {
        const expected = Array.from({ length: days }, (_, i) => utcDay(at.getTime() - (days - 1 - i) * 86_400_000));
        expect(windowDays(days, at)).toEqual(expected);
      }
    }
  });
});
