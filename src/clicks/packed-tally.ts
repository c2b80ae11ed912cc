import { emptyDay, mergeCodeTally, type ClickTally, type CodeTally, type SerializedTally } from './click-tally.js';

/** One day of a code as the click log stores it (see SerializedTally). */
type SerializedDay = SerializedTally[number][1][number];

/**
 * Receives one code's days, one at a time (`PackedBatch.addTo`, `LoggedClicks.addNotIn`): each
 * day's clicks, then, if `day` answered true, its referrer hosts and visitor labels. A day may
 * come more than once (once per batch that has it): a sink adds up what it is handed.
 */
export interface DaySink {
  day(day: string, clicks: number, bots: number): boolean;
  referrer(host: string, clicks: number): void;
  /** `key` as `labelKey` makes them. */
  label(key: string, clicks: number): void;
}

/**
 * A batch's codes, packed: all of them in one string, and an open-addressing hash table of their
 * positions in a typed array. A Map from code to run held a string object and a Map entry per
 * code; this holds the code's characters, its end and two to four table slots of 4 bytes: 41
 * bytes of heap less a code (see PackedBatch). Under cold traffic the click log holds up to
 * FOLD_AFTER_LOGGED_CODES of them until a fold (see LoggedClicks).
 */
class PackedCodes {
  private readonly text: string;
  /** Where each code ends in `text` (each starts where the one before ends). */
  private readonly ends: Uint32Array;
  /** A power of two at least twice the codes: each slot 0 (empty) or a code's index + 1. */
  private readonly slots: Uint32Array;

  constructor(codes: readonly string[]) {
    this.text = codes.join('');
    this.ends = new Uint32Array(codes.length);
    let end = 0;
    for (let i = 0; i < codes.length; i++) this.ends[i] = end += codes[i].length;
    this.slots = new Uint32Array(2 ** Math.ceil(Math.log2(Math.max(2, codes.length * 2))));
    const mask = this.slots.length - 1;
    for (let i = 0; i < codes.length; i++) {
      let slot = hashCode(codes[i]) & mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
      this.slots[slot] = i + 1;
    }
  }

  get size(): number {
    return this.ends.length;
  }

  /** The index of `code`, or -1 if the batch does not have it. */
  indexOf(code: string): number {
    const mask = this.slots.length - 1;
    for (let slot = hashCode(code) & mask; this.slots[slot] !== 0; slot = (slot + 1) & mask) {
      const index = this.slots[slot] - 1;
      const start = index === 0 ? 0 : this.ends[index - 1];
      if (this.ends[index] - start === code.length && this.text.startsWith(code, start)) return index;
    }
    return -1;
  }

  /** The code at `index` (a new string each time). */
  at(index: number): string {
    return this.text.slice(index === 0 ? 0 : this.ends[index - 1], this.ends[index]);
  }
}

/** FNV-1a over a string's UTF-16 code units. */
function hashCode(code: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < code.length; i++) hash = Math.imul(hash ^ code.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** Places in a day of a run (`day, clicks, bots, R, L`): its clicks, and R, its referrer pairs. */
const DAY_CLICKS = 1;
const DAY_REFERRERS = 3;

/**
 * One batch of the click log (a ClickTally), packed for what is held a while in bulk: by the
 * service until a fold, and by the fold itself. Each code's days are a run of numbers in one
 * typed array for the whole batch, its strings (days, referrer hosts, label keys) indexes into the
 * batch's own list of them, codes whose runs are identical (most codes under cold traffic:
 * clicked once, by visitors alike) share one, and the codes themselves are packed (PackedCodes).
 * A logged count then costs its code and its run: 29 bytes of heap when visitors are alike, 78
 * when they vary, against 70 and 120 with a Map from code to run (20 batches of 10,000 codes, each
 * with a referrer and four labels, typed arrays included).
 *
 * A code's run: its number of days, then per day `day, clicks, bots, R, L`, R pairs `host,
 * clicks` and L pairs `labelKey, clicks` (day, host and key as indexes into `strings`).
 */
export class PackedBatch {
  constructor(
    private readonly codeIndex: PackedCodes,
    /** Where each code's run starts in `runs`, by the code's index. */
    private readonly starts: Uint32Array,
    private readonly runs: Uint32Array,
    private readonly strings: readonly string[],
    /** Every referrer host of the batch's clicks, each once. */
    readonly hosts: readonly string[],
  ) {}

  /** Codes with clicks in the batch. */
  get size(): number {
    return this.codeIndex.size;
  }

  *codes(): IterableIterator<string> {
    for (let i = 0; i < this.codeIndex.size; i++) yield this.codeIndex.at(i);
  }

  has(code: string): boolean {
    return this.codeIndex.indexOf(code) !== -1;
  }

  /** Where the run of `code` starts in `runs`; undefined if the batch does not have it. */
  private startOf(code: string): number | undefined {
    const index = this.codeIndex.indexOf(code);
    return index === -1 ? undefined : this.starts[index];
  }

  /** All clicks of `code` in the batch (0 if it has none). */
  clicks(code: string): number {
    return this.sumOverDays(code, DAY_CLICKS);
  }

  /** The referrer hosts of `code` in the batch, counted once per day they appear on (0 if it has none). */
  referrerEntries(code: string): number {
    return this.sumOverDays(code, DAY_REFERRERS);
  }

  /** One number of each day of `code`'s run (`field`: its place after the day), added up. */
  private sumOverDays(code: string, field: number): number {
    const start = this.startOf(code);
    if (start === undefined) return 0;
    let sum = 0;
    let at = start + 1;
    for (let day = 0; day < this.runs[start]; day++) {
      sum += this.runs[at + field];
      at += 5 + 2 * (this.runs[at + DAY_REFERRERS] + this.runs[at + 4]);
    }
    return sum;
  }

  /** The tally of `code` in the batch (empty if it has none). */
  tally(code: string): CodeTally {
    const days: CodeTally = new Map();
    let current = emptyDay();
    this.addTo(code, {
      day(day, clicks, bots) {
        current = emptyDay();
        current.clicks = clicks;
        current.bots = bots;
        days.set(day, current);
        return true;
      },
      referrer(host, clicks) {
        current.referrers.set(host, clicks);
      },
      label(key, clicks) {
        current.labels.set(key, clicks);
      },
    });
    return days;
  }

  /**
   * Hands the days of `code` in the batch to `sink` one by one (nothing if it has none): a reader
   * that only adds them up builds no Map per day, as `tally` does.
   */
  addTo(code: string, sink: DaySink): void {
    const start = this.startOf(code);
    if (start === undefined) return;
    const { runs, strings } = this;
    let at = start + 1;
    for (let day = 0; day < runs[start]; day++) {
      const referrers = runs[at + 3];
      const labels = runs[at + 4];
      const wanted = sink.day(strings[runs[at]], runs[at + 1], runs[at + 2]);
      at += 5;
      if (!wanted) {
        at += 2 * (referrers + labels);
        continue;
      }
      for (let i = 0; i < referrers; i++, at += 2) sink.referrer(strings[runs[at]], runs[at + 1]);
      for (let i = 0; i < labels; i++, at += 2) sink.label(strings[runs[at]], runs[at + 1]);
    }
  }
}

/**
 * Packs one batch, code by code, with no Map, array or string of its own per code: a fold packs
 * every batch again for each of its parts, and what outlives the writer thread's small young
 * generation there is collected only with its old generation.
 */
class PackedBatchBuilder {
  private readonly codes: string[] = [];
  /** Where the run of each code of `codes` starts. */
  private readonly starts: number[] = [];
  private readonly runs: number[] = [];
  private readonly strings: string[] = [];
  private readonly indexes = new Map<string, number>();
  private readonly hosts = new Set<string>();
  /** The start of the first run with each hash of its numbers. */
  private readonly runsByHash = new Map<number, number>();
  /** Where the run of the code being added starts (its number of days). */
  private start = 0;

  /** A code's days from the counter's Maps. */
  addTally(code: string, days: CodeTally): void {
    this.startRun();
    for (const [day, { clicks, bots, referrers, labels }] of days) this.addDay(day, clicks, bots, referrers, labels);
    this.endRun(code);
  }

  /** A code's days as the click log stores them (a bare number: a row logged before daily counts existed). */
  addLogged(code: string, days: number | SerializedDay[], loggedDay: string): void {
    this.startRun();
    if (typeof days === 'number') this.addDay(loggedDay, days, 0, [], []);
    else
      for (const [day, clicks, referrers, bots = 0, labels = []] of days)
        this.addDay(day, clicks, bots, referrers, labels);
    this.endRun(code);
  }

  build(): PackedBatch {
    return new PackedBatch(
      new PackedCodes(this.codes),
      Uint32Array.from(this.starts),
      Uint32Array.from(this.runs),
      this.strings,
      [...this.hosts],
    );
  }

  private startRun(): void {
    this.start = this.runs.length;
    this.runs.push(0);
  }

  private addDay(
    day: string,
    clicks: number,
    bots: number,
    referrers: Iterable<readonly [string, number]>,
    labels: Iterable<readonly [string, number]>,
  ): void {
    const { runs } = this;
    runs[this.start]++;
    const at = runs.length;
    runs.push(this.index(day), clicks, bots, 0, 0);
    for (const [host, hostClicks] of referrers) {
      this.hosts.add(host);
      runs.push(this.index(host), hostClicks);
      runs[at + 3]++;
    }
    for (const [key, labelClicks] of labels) {
      runs.push(this.index(key), labelClicks);
      runs[at + 4]++;
    }
  }

  /** Keeps the run, or drops it for an identical one already kept. */
  private endRun(code: string): void {
    const { runs, start } = this;
    let hash = 0;
    for (let i = start; i < runs.length; i++) hash = Math.imul(hash ^ runs[i], 0x01000193);
    const earlier = this.runsByHash.get(hash);
    if (earlier !== undefined && this.sameRun(earlier, start)) {
      runs.length = start;
      this.codes.push(code);
      this.starts.push(earlier);
      return;
    }
    if (earlier === undefined) this.runsByHash.set(hash, start);
    this.codes.push(code);
    this.starts.push(start);
  }

  /** Whether the run at `earlier` holds the same numbers as the one from `start` to the end. */
  private sameRun(earlier: number, start: number): boolean {
    const length = this.runs.length - start;
    if (earlier + length > start) return false;
    for (let i = 0; i < length; i++) if (this.runs[earlier + i] !== this.runs[start + i]) return false;
    return true;
  }

  private index(value: string): number {
    let index = this.indexes.get(value);
    if (index === undefined) {
      index = this.strings.length;
      this.strings.push(value);
      this.indexes.set(value, index);
    }
    return index;
  }
}

/** A batch's counts (one flush's tally, as it is logged), packed. */
export function packTally(counts: ClickTally): PackedBatch {
  const builder = new PackedBatchBuilder();
  for (const [code, days] of counts) builder.addTally(code, days);
  return builder.build();
}

/**
 * A click-log row's counts (SerializedTally's JSON), packed. Batches logged before daily counts
 * existed hold `[[code, clicks], …]`: their clicks count on the day the batch was logged
 * (`loggedDay`), with no referrer.
 */
export function parsePackedTally(json: string, loggedDay: string): PackedBatch {
  const builder = new PackedBatchBuilder();
  for (const [code, days] of JSON.parse(json) as Array<[string, number | SerializedDay[]]>) {
    builder.addLogged(code, days, loggedDay);
  }
  return builder.build();
}

/**
 * Entries of a click-log row as `[code, the JSON of its days]` (those of some codes, as SQLite
 * picks them out of the row: see the fold), packed as `parsePackedTally` does.
 */
export function packLoggedTexts(entries: Iterable<[string, string]>, loggedDay: string): PackedBatch {
  const builder = new PackedBatchBuilder();
  for (const [code, days] of entries) builder.addLogged(code, JSON.parse(days) as number | SerializedDay[], loggedDay);
  return builder.build();
}

/** The tallies of `code` in several batches added up (referrer hosts bounded as `mergeCodeTally` does). */
export function mergeBatches(code: string, batches: readonly PackedBatch[]): CodeTally {
  if (batches.length === 1) return batches[0].tally(code);
  const days: CodeTally = new Map();
  for (const batch of batches) mergeCodeTally(days, batch.tally(code));
  return days;
}
