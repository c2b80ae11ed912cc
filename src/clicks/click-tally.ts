/** The referrer host of a click that came without a usable `Referer`. */
export const DIRECT = '(direct)';
/** Where a code's hosts go once it has MAX_HOSTS_PER_DAY of them in one flush. */
export const OTHER_HOSTS = '(other)';
/**
 * Distinct referrer hosts kept per code and day in one flush: a client inventing a new
 * `Referer` for every request cannot grow memory or the database without bound.
 */
export const MAX_HOSTS_PER_DAY = 50;
/** The longest DNS name. */
const MAX_HOST_LENGTH = 253;

/** What a person's click is counted by, besides its referrer host (link_daily_labels.dimension). */
export const LABEL_DIMENSIONS = ['country', 'device', 'browser', 'os'] as const;
export type LabelDimension = (typeof LABEL_DIMENSIONS)[number];

/**
 * One code's clicks on one UTC day: all of them (`clicks`), those of them that came from bots
 * (`bots`), and how many of the others, people's, came from each referrer host and carried each
 * visitor label (`labels`, keyed by `labelKey`: every person's click counts once per dimension).
 */
export interface DayTally {
  clicks: number;
  bots: number;
  referrers: Map<string, number>;
  labels: Map<string, number>;
}

/** An empty day. */
export function emptyDay(): DayTally {
  return { clicks: 0, bots: 0, referrers: new Map(), labels: new Map() };
}

/** The key of a visitor label in `DayTally.labels`: `country:US`, `device:mobile`, `browser:Chrome`… */
export function labelKey(dimension: LabelDimension, label: string): string {
  return `${dimension}:${label}`;
}

/** The dimension and label of a `labelKey` (dimension names hold no colon; labels may). */
export function splitLabelKey(key: string): [dimension: string, label: string] {
  const colon = key.indexOf(':');
  return [key.slice(0, colon), key.slice(colon + 1)];
}

/** Adds `clicks` clicks under the label `key`. Labels come from fixed vocabularies: no bound is needed. */
export function addLabel(tally: DayTally, key: string, clicks: number): void {
  tally.labels.set(key, (tally.labels.get(key) ?? 0) + clicks);
}

/** One code's clicks by UTC day (`YYYY-MM-DD`). */
export type CodeTally = Map<string, DayTally>;

/** Clicks by code, then by UTC day: what one flush writes. */
export type ClickTally = Map<string, CodeTally>;

/** The UTC day of `ms` (since the epoch) as `YYYY-MM-DD`. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The first millisecond of the UTC day after the one holding `ms`. */
export function nextUtcMidnight(ms: number): number {
  const day = 86_400_000;
  return Math.floor(ms / day) * day + day;
}

/**
 * The host of a `Referer` header, lower case, without port or user info; DIRECT when there is
 * none or it is not an absolute URL with a plausible host name. Written for the redirect path:
 * a few string scans, no URL parser (which costs microseconds per call).
 */
export function referrerHost(referer: string | undefined): string {
  if (referer === undefined || referer.length === 0) return DIRECT;
  const scheme = referer.indexOf('://');
  if (scheme <= 0) return DIRECT;
  let start = scheme + 3;
  let end = referer.length;
  for (let i = start; i < end; i++) {
    const c = referer.charCodeAt(i);
    if (c === 0x2f || c === 0x3f || c === 0x23) {
      end = i;
      break;
    }
  }
  const at = referer.lastIndexOf('@', end - 1);
  if (at >= start) start = at + 1;
  const colon = referer.indexOf(':', start);
  if (colon !== -1 && colon < end) end = colon;
  if (end === start || end - start > MAX_HOST_LENGTH) return DIRECT;
  const host = referer.slice(start, end).toLowerCase();
  return HOST_NAME.test(host) ? host : DIRECT;
}

const HOST_NAME = /^[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/;

/** Adds `clicks` clicks from `host` to `tally`, keeping at most MAX_HOSTS_PER_DAY hosts. */
export function addReferrer(tally: DayTally, host: string, clicks: number): void {
  const known = tally.referrers.get(host);
  if (known !== undefined) tally.referrers.set(host, known + clicks);
  else if (tally.referrers.size < MAX_HOSTS_PER_DAY) tally.referrers.set(host, clicks);
  else tally.referrers.set(OTHER_HOSTS, (tally.referrers.get(OTHER_HOSTS) ?? 0) + clicks);
}

/** Adds one code's tally into another's. */
export function mergeCodeTally(into: CodeTally, from: CodeTally): void {
  for (const [day, tally] of from) {
    let target = into.get(day);
    if (target === undefined) {
      target = emptyDay();
      into.set(day, target);
    }
    target.clicks += tally.clicks;
    target.bots += tally.bots;
    for (const [host, clicks] of tally.referrers) addReferrer(target, host, clicks);
    for (const [key, clicks] of tally.labels) addLabel(target, key, clicks);
  }
}

/** Adds every code of `from` into `into`. */
export function mergeTally(into: ClickTally, from: ClickTally): void {
  for (const [code, days] of from) {
    let target = into.get(code);
    if (target === undefined) {
      target = new Map();
      into.set(code, target);
    }
    mergeCodeTally(target, days);
  }
}

/** All clicks of one code's tally. */
export function totalClicks(days: CodeTally): number {
  let clicks = 0;
  for (const tally of days.values()) clicks += tally.clicks;
  return clicks;
}

/**
 * `[code, [[day, clicks, [[host, clicks], …], bots, [[labelKey, clicks], …]], …]]`: how the click
 * log stores a tally (JSON). Batches logged before bots were counted apart lack `bots`, and
 * those logged before visitors were labelled lack the labels.
 */
export type SerializedTally = Array<
  [
    code: string,
    days: Array<
      [day: string, clicks: number, referrers: Array<[string, number]>, bots?: number, labels?: Array<[string, number]>]
    >,
  ]
>;

export function serializeTally(tally: ClickTally): string {
  const out: SerializedTally = [];
  for (const [code, days] of tally) {
    out.push([
      code,
      [...days].map(([day, { clicks, referrers, bots, labels }]) => [day, clicks, [...referrers], bots, [...labels]]),
    ]);
  }
  return JSON.stringify(out);
}
