import { monthSplit } from './clicks.repository.js';

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
