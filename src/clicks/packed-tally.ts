import { emptyDay, mergeCodeTally, type ClickTally, type CodeTally, type SerializedTally } from './click-tally.js';

/**
 * One code's clicks (a CodeTally) in one flat array: for each day `day, clicks, bots, R, L`, then R
 * pairs `host, clicks` and L pairs `labelKey, clicks`. For what is held a while in bulk (the click
 * log's batches until a fold, in the service and in the fold itself): as Maps (a Map of days,
 * each with a Map of referrers and one of labels) a code's day took ~850 bytes of heap; packed,
 * ~250 (measured with a referrer and four labels).
 */
export type PackedCodeTally = Array<string | number>;

/** Where a day's fields sit in a PackedCodeTally, from the day's start. */
const DAY_CLICKS = 1;
const DAY_BOTS = 2;
const DAY_REFERRERS = 3;
const DAY_LABELS = 4;
const DAY_HEADER = 5;

/** Keeps one copy of each distinct string (days, hosts, label keys) packed in one batch. */
function sharedStrings(): (value: string) => string {
  const strings = new Map<string, string>();
  return (value) => {
    const known = strings.get(value);
    if (known !== undefined) return known;
    strings.set(value, value);
    return value;
  };
}

type DayFields = [
  day: string,
  clicks: number,
  bots: number,
  referrers: Iterable<[string, number]>,
  referrerCount: number,
  labels: Iterable<[string, number]>,
  labelCount: number,
];

function packDays(days: DayFields[], shared: (value: string) => string): PackedCodeTally {
  let length = 0;
  for (const [, , , , referrerCount, , labelCount] of days) length += DAY_HEADER + 2 * (referrerCount + labelCount);
  // Sized once: an array grown by push keeps up to half as much again as spare capacity.
  const packed = new Array<string | number>(length);
  let at = 0;
  for (const [day, clicks, bots, referrers, referrerCount, labels, labelCount] of days) {
    packed[at++] = shared(day);
    packed[at++] = clicks;
    packed[at++] = bots;
    packed[at++] = referrerCount;
    packed[at++] = labelCount;
    for (const [host, hostClicks] of referrers) {
      packed[at++] = shared(host);
      packed[at++] = hostClicks;
    }
    for (const [key, labelClicks] of labels) {
      packed[at++] = shared(key);
      packed[at++] = labelClicks;
    }
  }
  return packed;
}

/** A batch's counts, packed, each distinct string kept once. */
export function packTally(counts: ClickTally): Map<string, PackedCodeTally> {
  const shared = sharedStrings();
  const packed = new Map<string, PackedCodeTally>();
  for (const [code, days] of counts) {
    const fields: DayFields[] = [];
    for (const [day, { clicks, bots, referrers, labels }] of days) {
      fields.push([day, clicks, bots, referrers, referrers.size, labels, labels.size]);
    }
    packed.set(code, packDays(fields, shared));
  }
  return packed;
}

/** One code's entry of a click-log row (`serializeTally`'s JSON, or the older `[code, clicks]`). */
export type LoggedEntry = [code: string, value: number | SerializedTally[number][1]];

/**
 * A click-log row's counts (`serializeTally`'s JSON), packed. Batches logged before daily counts
 * existed hold `[[code, clicks], …]`: their clicks count on the day the batch was logged
 * (`loggedDay`), with no referrer.
 */
export function parsePackedTally(json: string, loggedDay: string): Map<string, PackedCodeTally> {
  return packLoggedEntries(JSON.parse(json) as LoggedEntry[], loggedDay);
}

/** Entries of a click-log row (all of them, or those of some codes: see the fold), packed as `parsePackedTally` does. */
export function packLoggedEntries(entries: Iterable<LoggedEntry>, loggedDay: string): Map<string, PackedCodeTally> {
  const shared = sharedStrings();
  const packed = new Map<string, PackedCodeTally>();
  for (const [code, value] of entries) {
    const fields: DayFields[] =
      typeof value === 'number'
        ? [[loggedDay, value, 0, [], 0, [], 0]]
        : value.map(([day, clicks, referrers, bots = 0, labels = []]) => [
            day,
            clicks,
            bots,
            referrers,
            referrers.length,
            labels,
            labels.length,
          ]);
    packed.set(code, packDays(fields, shared));
  }
  return packed;
}

/** The CodeTally a packed one holds. */
export function unpackCodeTally(packed: PackedCodeTally): CodeTally {
  const days: CodeTally = new Map();
  for (let day = 0; day < packed.length; day = nextDay(packed, day)) {
    const tally = emptyDay();
    tally.clicks = packed[day + DAY_CLICKS] as number;
    tally.bots = packed[day + DAY_BOTS] as number;
    const referrers = packed[day + DAY_REFERRERS] as number;
    const labels = packed[day + DAY_LABELS] as number;
    let at = day + DAY_HEADER;
    for (let i = 0; i < referrers; i++, at += 2) tally.referrers.set(packed[at] as string, packed[at + 1] as number);
    for (let i = 0; i < labels; i++, at += 2) tally.labels.set(packed[at] as string, packed[at + 1] as number);
    days.set(packed[day] as string, tally);
  }
  return days;
}

/** Several packed tallies of one code added up (referrer hosts bounded as `mergeCodeTally` does). */
export function mergePacked(parts: readonly PackedCodeTally[]): CodeTally {
  if (parts.length === 1) return unpackCodeTally(parts[0]);
  const days: CodeTally = new Map();
  for (const part of parts) mergeCodeTally(days, unpackCodeTally(part));
  return days;
}

/** All clicks of a packed tally. */
export function packedClicks(packed: PackedCodeTally): number {
  let clicks = 0;
  for (let day = 0; day < packed.length; day = nextDay(packed, day)) clicks += packed[day + DAY_CLICKS] as number;
  return clicks;
}

/** The referrer hosts of a packed tally (a host may come once per day). */
export function* packedHosts(packed: PackedCodeTally): Generator<string> {
  for (let day = 0; day < packed.length; day = nextDay(packed, day)) {
    const referrers = packed[day + DAY_REFERRERS] as number;
    for (let i = 0; i < referrers; i++) yield packed[day + DAY_HEADER + 2 * i] as string;
  }
}

/** Where the day after the one starting at `day` starts. */
function nextDay(packed: PackedCodeTally, day: number): number {
  return day + DAY_HEADER + 2 * ((packed[day + DAY_REFERRERS] as number) + (packed[day + DAY_LABELS] as number));
}
