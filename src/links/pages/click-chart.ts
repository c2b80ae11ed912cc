import type { DailyClicksDto } from '../../clicks/dto/link-clicks.dto.js';

/** The link page's bar chart, laid out on the server: the page's CSP forbids inline styles and scripts. */
export interface ClickChart {
  /** SVG user units; the SVG scales to its box (bars only, so stretching distorts nothing). */
  width: number;
  height: number;
  /** The tallest bar's count (at least 1, so an all-zero chart draws flat bars, not a division by zero). */
  max: number;
  total: number;
  busiest: DailyClicksDto | undefined;
  first: string;
  last: string;
  bars: { date: string; clicks: number; x: number; y: number; width: number; height: number }[];
  /** What a screen reader hears for the picture; the table beside it has every number. */
  summary: string;
}

const WIDTH = 600;
const HEIGHT = 160;
const GAP = 2;
// A day without clicks still shows a sliver, so the reader sees the day is there and empty.
const EMPTY_BAR = 1;

export function clickChart(days: DailyClicksDto[]): ClickChart {
  const max = Math.max(1, ...days.map((day) => day.clicks));
  const total = days.reduce((sum, day) => sum + day.clicks, 0);
  const busiest = days.reduce<DailyClicksDto | undefined>(
    (best, day) => (day.clicks > 0 && (!best || day.clicks > best.clicks) ? day : best),
    undefined,
  );
  const slot = WIDTH / Math.max(1, days.length);
  const bars = days.map((day, index) => {
    const height = day.clicks === 0 ? EMPTY_BAR : Math.max(EMPTY_BAR, (day.clicks / max) * HEIGHT);
    return {
      date: day.date,
      clicks: day.clicks,
      x: round(index * slot + GAP / 2),
      y: round(HEIGHT - height),
      width: round(Math.max(1, slot - GAP)),
      height: round(height),
    };
  });
  const first = days[0]?.date ?? '';
  const last = days.at(-1)?.date ?? '';
  const summary =
    total === 0
      ? `No clicks from ${first} to ${last}.`
      : `${plural(total, 'click')} from ${first} to ${last}; the busiest day was ${busiest!.date} with ${plural(busiest!.clicks, 'click')}.`;
  return { width: WIDTH, height: HEIGHT, max, total, busiest, first, last, bars, summary };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
