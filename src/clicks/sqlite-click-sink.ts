import { Logger } from '@nestjs/common';
import type { PrismaService } from '../database/prisma.service.js';
import { toSqliteDateTime, type SqliteBackgroundWriter } from '../database/sqlite-background-writer.js';
import { foldClickLog } from './click-log-fold.js';
import { ClickSink } from './click-sink.js';
import { serializeTally, utcDay, type ClickTally } from './click-tally.js';
import { LoggedClicks } from './logged-clicks.js';
import { packTally, parsePackedTally } from './packed-tally.js';

/**
 * The click log is folded into the links once it holds this many code counts (one per code per
 * batch; 29-78 bytes of heap each while logged, packed, see PackedBatch: up to 6-16 MiB here,
 * reached within FOLD_AFTER_MS only when over 3,000 different links are clicked a second) …
 */
export const FOLD_AFTER_LOGGED_CODES = 200_000;
/** … or once its oldest batch is this old (ms), whichever comes first. */
export const FOLD_AFTER_MS = 60_000;
/**
 * A fold due by size or age is spread over this share of the time its batches took to be logged
 * (see database/task-pacing.ts): under steady load the writer then folds at a low, even pace instead of
 * in bursts that take CPU from the event loop all at once. Below 1, so a fold ends before the
 * next one is due.
 */
export const FOLD_SPREAD_SHARE = 0.75;

/**
 * SQLite (one instance): each flush is appended to the click log (`click_batches`) as one row,
 * a write whose cost does not grow with the number of links; the log is added to `links.clicks`
 * and the daily rows in bulk (a fold, on the background writer) after FOLD_AFTER_MS or
 * FOLD_AFTER_LOGGED_CODES, and at shutdown. Over many links each visited code's row sits on a
 * page of its own, so writing every flush into the links would cost a page write (and its
 * checkpoint) per click; folded, each page is written once per fold. Batches a crash left in the
 * log are counted from start-up and folded with the next fold. Readers add the logged clicks a
 * row does not include yet (LoggedClicks), so counts are as fresh as on PostgreSQL.
 */
export class SqliteClickSink extends ClickSink {
  private readonly logger = new Logger(SqliteClickSink.name);
  private folding?: Promise<void>;

  constructor(
    private readonly prisma: PrismaService,
    private readonly writer: SqliteBackgroundWriter,
    private readonly loggedClicks: LoggedClicks,
  ) {
    super();
  }

  async start(): Promise<void> {
    const rows = await this.prisma.clickBatch.findMany({ orderBy: { id: 'asc' } });
    for (const row of rows) {
      // Read straight into the packed form LoggedClicks holds: no Map per code and day on the way.
      this.loggedClicks.add({
        id: row.id,
        closedAt: row.loggedAt,
        counts: parsePackedTally(row.counts, utcDay(row.loggedAt.getTime())),
      });
    }
  }

  /** The batch becomes one row of the click log. */
  async write(batch: ClickTally): Promise<ClickTally> {
    // Every click in the batch was counted before this moment (see LoggedClicks.clicksNotIn).
    const closedAt = new Date();
    try {
      const { lastInsertRowid } = await this.writer.runReturningRowid(
        'INSERT INTO "click_batches" ("logged_at", "counts") VALUES (?, ?)',
        [toSqliteDateTime(closedAt), serializeTally(batch)],
      );
      this.loggedClicks.add({ id: lastInsertRowid, closedAt, counts: packTally(batch) });
      return new Map();
    } catch (error) {
      this.logger.warn(`Could not write click counts, will retry: ${String(error)}`);
      return batch;
    }
  }

  /** Folds the log if that is due, and waits for it; later flushes do not (batches are logged while a fold runs). */
  async afterFlush(): Promise<void> {
    if (!this.folding && this.foldDue()) await this.fold(this.foldSpreadMs());
  }

  /**
   * A stopped service's links hold every count: nothing is left for the next start (or for
   * anyone reading the file) to add up. A paced fold under way finishes at full speed first. (If
   * the writer is gone, so is that fold: the one below starts it again.)
   */
  async stop(): Promise<void> {
    if (this.folding) {
      await this.writer.hurry().catch(() => undefined);
      await this.folding;
    }
    if (this.loggedClicks.size > 0) await this.fold();
  }

  /**
   * Adds everything logged so far to the links and their daily rows: after the fold under way,
   * if any (one runs at a time), which may have started before the latest batches were logged.
   * Spread over about `spreadMs` (0, the default: as fast as it can). A fold that fails keeps
   * its batches in the log (and in LoggedClicks) for the next one; rows it did update already
   * are not counted twice. Never rejects.
   */
  async fold(spreadMs = 0): Promise<void> {
    while (this.folding) await this.folding;
    this.folding = this.writer
      .runTask(foldClickLog, { spreadMs })
      .then(
        (through) => this.loggedClicks.dropThrough(through),
        (error: unknown) => this.logger.warn(`Could not add the click log to the links, will retry: ${String(error)}`),
      )
      .finally(() => {
        this.folding = undefined;
      });
    await this.folding;
  }

  private foldDue(): boolean {
    const oldest = this.loggedClicks.oldestClosedAt;
    if (!oldest) return false;
    return this.loggedClicks.size >= FOLD_AFTER_LOGGED_CODES || Date.now() - oldest.getTime() >= FOLD_AFTER_MS;
  }

  /** FOLD_SPREAD_SHARE of the time the logged batches took to be logged. */
  private foldSpreadMs(): number {
    const oldest = this.loggedClicks.oldestClosedAt;
    return oldest ? FOLD_SPREAD_SHARE * (Date.now() - oldest.getTime()) : 0;
  }
}
