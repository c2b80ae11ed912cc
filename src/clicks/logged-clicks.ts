import { Injectable } from '@nestjs/common';
import { emptyDay, mergeCodeTally, type ClickTally, type CodeTally } from './click-tally.js';

/** One flush's clicks, as written to the click log. */
export interface LoggedClickBatch {
  /** `click_batches.id`: batches are added to links in this order. */
  id: number;
  /** When the batch was closed: it holds only clicks counted before. */
  closedAt: Date;
  counts: ClickTally;
}

/** What a link row says about the clicks it includes. */
export interface LinkClicks {
  code: string;
  createdAt: Date;
  /** The last batch `clicks` (and the link's daily rows) include (0: none). */
  clicksThroughBatch: number;
}

/**
 * One code's clicks in one batch, in one flat array: for each day `day, clicks, bots, R, L`, then
 * R pairs `host, clicks` and L pairs `labelKey, clicks`. As Maps (a CodeTally: a Map of days, each
 * with a Map of referrers and one of labels) a code count took ~850 bytes of heap; packed, ~180.
 */
type PackedCodeTally = Array<string | number>;

/** Where a day's fields sit in a PackedCodeTally, from the day's start. */
const DAY_CLICKS = 1;
const DAY_BOTS = 2;
const DAY_REFERRERS = 3;
const DAY_LABELS = 4;
const DAY_HEADER = 5;

interface HeldBatch {
  id: number;
  closedAt: Date;
  counts: Map<string, PackedCodeTally>;
}

/**
 * The click batches in the click log (`click_batches`, SQLite) that may not be in the links and
 * their daily rows yet. On SQLite the click counter appends one batch per flush and adds the log
 * to the links in bulk only every so often (see SqliteClickSink); readers add the batches a row
 * does not include yet to what they read, so counts stay at most one flush interval behind, as
 * on PostgreSQL (where nothing is ever logged here and this adds nothing).
 *
 * Exact whatever a fold is doing meanwhile: a row, its daily rows and the last batch they
 * include are read in one snapshot, and a batch is dropped here only once every row has it.
 *
 * Under cold traffic over many links a batch holds a count for most codes clicked in its flush
 * interval (10,000 a second at the benchmark's cold redirects), and the log is held until a fold
 * (up to FOLD_AFTER_LOGGED_CODES counts): each is kept packed (PackedCodeTally), with the strings
 * of a batch (days, hosts, label keys) shared, and unpacked only for the few codes a read asks for.
 */
@Injectable()
export class LoggedClicks {
  private batches: HeldBatch[] = [];
  /** The codes and referrer hosts in the batches held, each with the number of batches that have it. */
  private readonly codeCounts = new Map<string, number>();
  private readonly hostCounts = new Map<string, number>();

  /** Records a batch that is now in the log; batches arrive in id order. */
  add(batch: LoggedClickBatch): void {
    const held: HeldBatch = { id: batch.id, closedAt: batch.closedAt, counts: pack(batch.counts) };
    this.batches.push(held);
    this.count(held, 1);
  }

  /** Forgets the batches up to `through`: they are in the links now. */
  dropThrough(through: number): void {
    for (const batch of this.batches) if (batch.id <= through) this.count(batch, -1);
    this.batches = this.batches.filter((batch) => batch.id > through);
  }

  /** Every code with clicks in the batches held (the account overview asks which are its own). */
  codes(): string[] {
    return [...this.codeCounts.keys()];
  }

  /** Every referrer host of the clicks in the batches held. */
  hosts(): string[] {
    return [...this.hostCounts.keys()];
  }

  private count(batch: HeldBatch, change: 1 | -1): void {
    const hosts = new Set<string>();
    for (const [code, packed] of batch.counts) {
      adjust(this.codeCounts, code, change);
      for (let day = 0; day < packed.length; day = nextDay(packed, day)) {
        const referrers = packed[day + DAY_REFERRERS] as number;
        for (let i = 0; i < referrers; i++) hosts.add(packed[day + DAY_HEADER + 2 * i] as string);
      }
    }
    for (const host of hosts) adjust(this.hostCounts, host, change);
  }

  /**
   * The clicks of `link` in logged batches its row does not include: those after its last
   * included batch, closed after it was created (a batch closed before holds only clicks of a
   * deleted link that had the same code).
   */
  clicksNotIn(link: LinkClicks): number {
    let clicks = 0;
    for (const packed of this.batchesNotIn(link)) {
      for (let day = 0; day < packed.length; day = nextDay(packed, day)) clicks += packed[day + DAY_CLICKS] as number;
    }
    return clicks;
  }

  /** The same clicks as `clicksNotIn`, by day and referrer host. */
  tallyNotIn(link: LinkClicks): CodeTally {
    const tally: CodeTally = new Map();
    for (const packed of this.batchesNotIn(link)) mergeCodeTally(tally, unpack(packed));
    return tally;
  }

  private *batchesNotIn(link: LinkClicks): Generator<PackedCodeTally> {
    for (const batch of this.batches) {
      if (batch.id > link.clicksThroughBatch && batch.closedAt.getTime() >= link.createdAt.getTime()) {
        const packed = batch.counts.get(link.code);
        if (packed) yield packed;
      }
    }
  }

  /** Code counts held (one per code per batch): what this costs in memory. */
  get size(): number {
    return this.batches.reduce((sum, batch) => sum + batch.counts.size, 0);
  }

  /** When the oldest batch held was closed; undefined when none is. */
  get oldestClosedAt(): Date | undefined {
    return this.batches[0]?.closedAt;
  }
}

/** A batch's counts packed, each distinct string (day, host, label key) kept once. */
function pack(counts: ClickTally): Map<string, PackedCodeTally> {
  const strings = new Map<string, string>();
  const shared = (value: string): string => {
    const known = strings.get(value);
    if (known !== undefined) return known;
    strings.set(value, value);
    return value;
  };
  const packedCounts = new Map<string, PackedCodeTally>();
  for (const [code, days] of counts) {
    let length = 0;
    for (const { referrers, labels } of days.values()) length += DAY_HEADER + 2 * (referrers.size + labels.size);
    // Sized once: an array grown by push keeps up to half as much again as spare capacity.
    const packed = new Array<string | number>(length);
    let at = 0;
    for (const [day, { clicks, bots, referrers, labels }] of days) {
      packed[at++] = shared(day);
      packed[at++] = clicks;
      packed[at++] = bots;
      packed[at++] = referrers.size;
      packed[at++] = labels.size;
      for (const [host, hostClicks] of referrers) {
        packed[at++] = shared(host);
        packed[at++] = hostClicks;
      }
      for (const [key, labelClicks] of labels) {
        packed[at++] = shared(key);
        packed[at++] = labelClicks;
      }
    }
    packedCounts.set(code, packed);
  }
  return packedCounts;
}

function unpack(packed: PackedCodeTally): CodeTally {
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

/** Where the day after the one starting at `day` starts. */
function nextDay(packed: PackedCodeTally, day: number): number {
  return day + DAY_HEADER + 2 * ((packed[day + DAY_REFERRERS] as number) + (packed[day + DAY_LABELS] as number));
}

function adjust(counts: Map<string, number>, key: string, change: number): void {
  const count = (counts.get(key) ?? 0) + change;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}
