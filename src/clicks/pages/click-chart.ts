import type { DailyClicksDto } from '../dto/link-clicks.dto.js';

/**
 * The click pages' bar chart (a link's, the account's), laid out on the server: the pages' CSP
 * forbids inline styles and scripts. Each day's bar is people's clicks with the bots' stacked on
 * top in a colour of their own.
 */
export interface ClickChart {
  /** SVG user units; the SVG scales to its box (bars only, so stretching distorts nothing). */
  width: number;
  height: number;
  /** The tallest bar's count (at least 1, so an all-zero chart draws flat bars, not a division by zero). */
  max: number;
  total: number;
  bots: number;
  busiest: DailyClicksDto | undefined;
  first: string;
  last: string;
  bars: ChartBar[];
  /** What a screen reader hears for the picture; the table beside it has every number. */
  summary: string;
}

/** One day: the whole bar (`y`, `height`) and its top part, the bots' (`botY`, `botHeight`; 0 without). */
export interface ChartBar {
  date: string;
  clicks: number;
  bots: number;
  x: number;
  y: number;
  width: number;
  height: number;
  botY: number;
  botHeight: number;
  /** What the bar's tooltip says. */
  title: string;
}

const WIDTH = 600;
const HEIGHT = 160;
const GAP = 2;
// A day without clicks still shows a sliver, so the reader sees the day is there and empty.
const EMPTY_BAR = 1;

export function clickChart(days: DailyClicksDto[]): ClickChart {
  const max = Math.max(1, ...days.map((day) => day.clicks));
  const total = days.reduce((sum, day) => sum + day.clicks, 0);
  const bots = days.reduce((sum, day) => sum + day.bots, 0);
  const busiest = days.reduce<DailyClicksDto | undefined>(
    (best, day) => (day.clicks > 0 && (!best || day.clicks > best.clicks) ? day : best),
    undefined,
  );
  const slot = WIDTH / Math.max(1, days.length);
  const bars = days.map((day, index) => {
    const height = day.clicks === 0 ? EMPTY_BAR : Math.max(EMPTY_BAR, (day.clicks / max) * HEIGHT);
    const botHeight = day.clicks === 0 ? 0 : (Math.min(day.bots, day.clicks) / day.clicks) * height;
    return {
      date: day.date,
      clicks: day.clicks,
      bots: day.bots,
      x: round(index * slot + GAP / 2),
      y: round(HEIGHT - height),
      width: round(Math.max(1, slot - GAP)),
      height: round(height),
      botY: round(HEIGHT - height),
      botHeight: round(botHeight),
      title: `${day.date}: ${plural(day.clicks, 'click')}${day.bots > 0 ? `, ${day.bots} from bots` : ''}`,
    };
  });
  const first = days[0]?.date ?? '';
  const last = days.at(-1)?.date ?? '';
  const summary =
    total === 0
      ? `No clicks from ${first} to ${last}.`
      : `${plural(total, 'click')} from ${first} to ${last}${bots > 0 ? ` (${bots} from bots)` : ''}; the busiest day was ${busiest!.date} with ${plural(busiest!.clicks, 'click')}.`;
  return { width: WIDTH, height: HEIGHT, max, total, bots, busiest, first, last, bars, summary };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
