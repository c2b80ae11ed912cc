import { Injectable } from '@nestjs/common';
import { MAX_HOSTS_PER_DAY, mergeCodeTally, type CodeTally } from './click-tally.js';
import { mergeBatches, type DaySink, type PackedBatch } from './packed-tally.js';

/**
 * One flush's clicks, as written to the click log, packed (`packTally` of a flush,
 * `parsePackedTally` of a row read back at start-up).
 */
export interface LoggedClickBatch {
  /** `click_batches.id`: batches are added to links in this order. */
  id: number;
  /** When the batch was closed: it holds only clicks counted before. */
  closedAt: Date;
  counts: PackedBatch;
}

/** What a link row says about the clicks it includes. */
export interface LinkClicks {
  code: string;
  createdAt: Date;
  /** The last batch `clicks` (and the link's daily rows) include (0: none). */
  clicksThroughBatch: number;
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
 * (up to FOLD_AFTER_LOGGED_CODES counts): each batch is kept packed (PackedBatch), and a code's
 * tally unpacked only for the few codes a read asks for.
 */
@Injectable()
export class LoggedClicks {
  private batches: LoggedClickBatch[] = [];
  /** The codes and referrer hosts in the batches held, each with the number of batches that have it. */
  private readonly codeCounts = new Map<string, number>();
  private readonly hostCounts = new Map<string, number>();

  /** Records a batch that is now in the log; batches arrive in id order. */
  add(batch: LoggedClickBatch): void {
    this.batches.push(batch);
    this.count(batch, 1);
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

  /** How many codes have clicks in the batches held. */
  get codeCount(): number {
    return this.codeCounts.size;
  }

  /** Whether `code` has clicks in the batches held. */
  has(code: string): boolean {
    return this.codeCounts.has(code);
  }

  /** Every referrer host of the clicks in the batches held. */
  hosts(): string[] {
    return [...this.hostCounts.keys()];
  }

  private count(batch: LoggedClickBatch, change: 1 | -1): void {
    for (const code of batch.counts.codes()) adjust(this.codeCounts, code, change);
    for (const host of batch.counts.hosts) adjust(this.hostCounts, host, change);
  }

  /**
   * The clicks of `link` in logged batches its row does not include: those after its last
   * included batch, closed after it was created (a batch closed before holds only clicks of a
   * deleted link that had the same code).
   */
  clicksNotIn(link: LinkClicks): number {
    let clicks = 0;
    for (const batch of this.batchesNotIn(link)) clicks += batch.clicks(link.code);
    return clicks;
  }

  /** The same clicks as `clicksNotIn`, by day and referrer host. */
  tallyNotIn(link: LinkClicks): CodeTally {
    const tally: CodeTally = new Map();
    for (const batch of this.batchesNotIn(link)) mergeCodeTally(tally, batch.tally(link.code));
    return tally;
  }

  /**
   * Hands the same clicks as `tallyNotIn` to `sink`, day by day. Batch by batch, building no
   * tally: one batch (the usual case) as it is, its days' hosts already bounded by the counter;
   * several unless they hold more referrer entries for the link than a day keeps
   * (MAX_HOSTS_PER_DAY). Only then could the fold put some hosts' clicks under OTHER_HOSTS, and
   * the batches are merged first, as the fold merges them, so that the answer is the same before
   * and after it. The account overview adds the logged clicks of thousands of links per call this
   * way, where a tally each (a Map per day, two more inside) made most of the call's garbage.
   */
  addNotIn(link: LinkClicks, sink: DaySink): void {
    const batches = this.batchesNotIn(link);
    if (batches.length === 0) return;
    if (batches.length === 1) {
      batches[0].addTo(link.code, sink);
      return;
    }
    let referrerEntries = 0;
    for (const batch of batches) referrerEntries += batch.referrerEntries(link.code);
    if (referrerEntries <= MAX_HOSTS_PER_DAY) {
      for (const batch of batches) batch.addTo(link.code, sink);
      return;
    }
    for (const [day, { clicks, bots, referrers, labels }] of mergeBatches(link.code, batches)) {
      if (!sink.day(day, clicks, bots)) continue;
      for (const [host, hostClicks] of referrers) sink.referrer(host, hostClicks);
      for (const [key, labelClicks] of labels) sink.label(key, labelClicks);
    }
  }

  /**
   * The batches with clicks of `link` that its row does not include. Asked for every link of a
   * list: the batches are looked at only until as many as have the code were seen, and not at
   * all for a code in none.
   */
  private batchesNotIn(link: LinkClicks): PackedBatch[] {
    const found: PackedBatch[] = [];
    let left = this.codeCounts.get(link.code) ?? 0;
    const createdAt = link.createdAt.getTime();
    for (let i = 0; left > 0 && i < this.batches.length; i++) {
      const { id, closedAt, counts } = this.batches[i];
      if (!counts.has(link.code)) continue;
      left--;
      if (id > link.clicksThroughBatch && closedAt.getTime() >= createdAt) found.push(counts);
    }
    return found;
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

function adjust(counts: Map<string, number>, key: string, change: number): void {
  const count = (counts.get(key) ?? 0) + change;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}
