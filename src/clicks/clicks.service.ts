import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';
import { couldBeCode } from '../links/short-code.js';
import { splitLabelKey, type CodeTally } from './click-tally.js';
import { ClicksRepository, type LabelClicks } from './clicks.repository.js';
import type {
  AccountClicksDto,
  BrowserClicksDto,
  CountryClicksDto,
  DailyClicksDto,
  DeviceClicksDto,
  LinkClicksDto,
  OsClicksDto,
} from './dto/link-clicks.dto.js';
import { LoggedClicks } from './logged-clicks.js';
import type { DaySink } from './packed-tally.js';
import type { Device } from './visitors/user-agent.js';

/** Entries each ranking (referrers, countries, browsers, links…) lists. */
export const TOP_ENTRIES = 10;
const DAY_MS = 86_400_000;

/**
 * Up to this many logged codes, an account's reads pass them all to their query as they are
 * (see `loggedCodesOf`).
 */
const LOGGED_CODES_PASSED_WHOLE = 1_000;

/** A link's and an account's click analytics, for the API and the dashboard alike. */
@Injectable()
export class ClicksService {
  constructor(
    private readonly repository: ClicksRepository,
    private readonly loggedClicks: LoggedClicks,
  ) {}

  /**
   * The clicks of the account's link `code`: all-time, on each of the last `days` UTC days
   * (today included, oldest first, zeros included), and over those days by referring host and by
   * visitor label (people's clicks only). Throws `ApiError.notFound()` for a code that is unknown,
   * deleted, anonymous or another account's. `days` must be 1–366 (validated by the caller).
   */
  async linkClicks(accountId: string, code: string, days: number, now = new Date()): Promise<LinkClicksDto> {
    if (!couldBeCode(code)) throw ApiError.notFound();
    const window = windowDays(days, now);
    // On SQLite, logged clicks not folded yet can change the order of the hosts: all are read.
    const unfolded = this.loggedClicks.size > 0;
    const rows = await this.repository.linkClicks(accountId, code, window[0], unfolded ? undefined : TOP_ENTRIES);
    if (!rows) throw ApiError.notFound();

    const counts = new WindowCounts(window);
    counts.addDays(rows.days);
    for (const { host, clicks } of rows.referrers) add(counts.referrers, host, clicks);
    counts.addLabels(rows.labels);
    let total = rows.link.clicks;
    if (unfolded) {
      const logged = this.loggedClicks.tallyNotIn(rows.link);
      for (const tally of logged.values()) total += tally.clicks;
      counts.addTally(logged);
    }
    const daily = counts.daily();
    return {
      code: rows.link.code,
      total,
      days: daily,
      bots: daily.reduce((sum, day) => sum + day.bots, 0),
      referrers: top(counts.referrers).map(([host, clicks]) => ({ host, clicks })),
      countries: top(counts.labelsOf('country')).map(([country, clicks]): CountryClicksDto => ({ country, clicks })),
      devices: top(counts.labelsOf('device')).map(([device, clicks]): DeviceClicksDto => ({
        device: device as Device,
        clicks,
      })),
      browsers: top(counts.labelsOf('browser')).map(([browser, clicks]): BrowserClicksDto => ({ browser, clicks })),
      os: top(counts.labelsOf('os')).map(([os, clicks]): OsClicksDto => ({ os, clicks })),
    };
  }

  /**
   * The codes with logged clicks not folded yet (SQLite's click log; none on PostgreSQL) that an
   * account's read must look at: a superset of the account's logged codes. Under cold traffic over
   * the whole instance the log holds a code for every link clicked since the last fold (100,000
   * and more), and an account's query looked each of them up in `links` to find the account's:
   * 100 ms a call. When the log holds more codes than the account has links, the account's codes
   * are read instead (through its index) and those in the log picked here.
   */
  async loggedCodesOf(accountId: string): Promise<string[]> {
    const logged = this.loggedClicks.codeCount;
    if (logged <= LOGGED_CODES_PASSED_WHOLE) return this.loggedClicks.codes();
    const own = await this.repository.accountCodesIfFewer(accountId, logged);
    return own === null ? this.loggedClicks.codes() : own.filter((code) => this.loggedClicks.has(code));
  }

  /**
   * All the account's links' clicks on each of the last `days` UTC days (as `linkClicks`), the 10
   * links with most clicks over them, and people's clicks by country and referring host. `days`
   * must be 1–366 (validated by the caller).
   */
  async accountClicks(accountId: string, days: number, now = new Date()): Promise<AccountClicksDto> {
    const window = windowDays(days, now);
    // On SQLite the clicks logged but not folded yet are added here; their codes and hosts are
    // read apart from the rankings, which then hold every other candidate (see ACCOUNT_CLICKS).
    const rows = await this.repository.accountClicks(
      accountId,
      window[0],
      await this.loggedCodesOf(accountId),
      this.loggedClicks.hosts(),
      TOP_ENTRIES,
    );
    const counts = new WindowCounts(window);
    counts.addDays(rows.days);
    const links = new Map(rows.links.map(({ code, clicks }) => [code, clicks]));
    for (const { host, clicks } of [...rows.referrers, ...rows.loggedReferrers]) add(counts.referrers, host, clicks);
    for (const { country, clicks } of rows.countries) add(counts.labels, `country:${country}`, clicks);
    for (const { link, clicks } of rows.logged) {
      links.set(link.code, clicks + counts.add((sink) => this.loggedClicks.addNotIn(link, sink)));
    }
    const daily = counts.daily();
    return {
      total: daily.reduce((sum, day) => sum + day.clicks, 0),
      bots: daily.reduce((sum, day) => sum + day.bots, 0),
      days: daily,
      links: top(links).map(([code, clicks]) => ({ code, clicks })),
      countries: top(counts.labelsOf('country')).map(([country, clicks]) => ({ country, clicks })),
      referrers: top(counts.referrers).map(([host, clicks]) => ({ host, clicks })),
    };
  }
}

/**
 * The UTC days of the last `days`, today last. Counted on a Date rather than formatted from
 * milliseconds each (`toISOString` per day cost a fifth of a year's answer).
 */
export function windowDays(days: number, now: Date): string[] {
  const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - (days - 1) * DAY_MS);
  const window: string[] = new Array<string>(days);
  for (let i = 0; i < days; i++) {
    const month = day.getUTCMonth() + 1;
    const date = day.getUTCDate();
    window[i] = `${day.getUTCFullYear()}-${month < 10 ? '0' : ''}${month}-${date < 10 ? '0' : ''}${date}`;
    day.setUTCDate(date + 1);
  }
  return window;
}

function add(counts: Map<string, number>, key: string, clicks: number): void {
  counts.set(key, (counts.get(key) ?? 0) + clicks);
}

/** The TOP_ENTRIES entries with most clicks (none without), most first, then by name. */
function top(counts: Map<string, number>): Array<[string, number]> {
  return [...counts]
    .filter(([, clicks]) => clicks > 0)
    .sort(([nameA, a], [nameB, b]) => b - a || (nameA < nameB ? -1 : nameA > nameB ? 1 : 0))
    .slice(0, TOP_ENTRIES);
}

/**
 * Clicks over a window of days as read from the database, plus what the click log adds (handed
 * in day by day as a DaySink: days before the window are left out).
 */
class WindowCounts implements DaySink {
  private readonly perDay = new Map<string, { clicks: number; bots: number }>();
  readonly referrers = new Map<string, number>();
  /** By `labelKey`. */
  readonly labels = new Map<string, number>();
  /** Clicks of every day in the window handed in so far (see `add`). */
  private clicksInWindow = 0;

  constructor(private readonly window: readonly string[]) {}

  addDays(rows: ReadonlyArray<{ day: string; clicks: number; bots: number }>): void {
    for (const { day, clicks, bots } of rows) this.addDay(day, clicks, bots);
  }

  addLabels(rows: readonly LabelClicks[]): void {
    for (const { dimension, label, clicks } of rows) add(this.labels, `${dimension}:${label}`, clicks);
  }

  /** A tally's days that fall in the window. */
  addTally(tally: CodeTally): void {
    for (const [day, { clicks, bots, referrers, labels }] of tally) {
      if (!this.day(day, clicks, bots)) continue;
      for (const [host, hostClicks] of referrers) this.referrer(host, hostClicks);
      for (const [key, labelClicks] of labels) this.label(key, labelClicks);
    }
  }

  /** Takes what `source` hands in day by day; answers the clicks of those days that fall in the window. */
  add(source: (sink: DaySink) => void): number {
    const before = this.clicksInWindow;
    source(this);
    return this.clicksInWindow - before;
  }

  day(day: string, clicks: number, bots: number): boolean {
    if (day < this.window[0]) return false;
    this.addDay(day, clicks, bots);
    this.clicksInWindow += clicks;
    return true;
  }

  referrer(host: string, clicks: number): void {
    add(this.referrers, host, clicks);
  }

  label(key: string, clicks: number): void {
    add(this.labels, key, clicks);
  }

  /** One dimension's labels, with their clicks. */
  labelsOf(dimension: string): Map<string, number> {
    const found = new Map<string, number>();
    for (const [key, clicks] of this.labels) {
      const [keyDimension, label] = splitLabelKey(key);
      if (keyDimension === dimension) found.set(label, clicks);
    }
    return found;
  }

  /** Every day of the window, oldest first, zeros included. */
  daily(): DailyClicksDto[] {
    return this.window.map((date) => ({ date, clicks: 0, bots: 0, ...this.perDay.get(date) }));
  }

  private addDay(day: string, clicks: number, bots: number): void {
    const known = this.perDay.get(day);
    if (known) {
      known.clicks += clicks;
      known.bots += bots;
    } else {
      this.perDay.set(day, { clicks, bots });
    }
  }
}
