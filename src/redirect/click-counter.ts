import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { LoggedClicks } from '../links/logged-clicks.js';
import { RedirectRepository } from './redirect.repository.js';

/** Codes written per transaction: keeps one flush of a busy minute from becoming one huge statement batch. */
export const CLICK_FLUSH_BATCH_SIZE = 500;

/**
 * SQLite: the click log is added to the links once it holds this many code counts (one per code
 * per batch; about 100 bytes of memory each while logged, see LoggedClicks) …
 */
export const FOLD_AFTER_LOGGED_CODES = 200_000;
/** … or once its oldest batch is this old (ms), whichever comes first. */
export const FOLD_AFTER_MS = 60_000;
/**
 * A fold due by size or age is spread over this share of the time its batches took to be logged
 * (at no more than half a core; see fold-pacing.js): under steady load the writer then folds at
 * a low, even pace instead of in bursts that take CPU from the event loop all at once. Below 1,
 * so a fold ends before the next one is due.
 */
export const FOLD_SPREAD_SHARE = 0.75;

/**
 * Counts redirects in memory and writes them in batches, so a redirect never waits for (or
 * causes) a database write. Counts are flushed every `CLICK_FLUSH_INTERVAL_MS` and when the
 * application shuts down; the API's `clicks` lag by up to one interval. A flush that fails keeps
 * its counts for the next one; only a crash (or a database that stays down through shutdown)
 * loses the clicks of the last interval.
 *
 * Where a flush goes:
 * - PostgreSQL: straight into `links.clicks` (several instances share the database, and each
 *   must see the others' counts).
 * - SQLite (one instance): appended to the click log as one row, and added to `links.clicks` in
 *   bulk (a fold) after FOLD_AFTER_MS or FOLD_AFTER_LOGGED_CODES, and at shutdown. Batches a
 *   crash left in the log are counted from start-up and folded with the next fold.
 *   Over 1M links a flush written into `links` cost a page write and its checkpoint per click
 *   (each visited code's row on a page of its own); folded, each page is written once per fold.
 *   The API adds the logged clicks a row does not include yet (LoggedClicks), so counts are as
 *   fresh as on PostgreSQL.
 */
@Injectable()
export class ClickCounter implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ClickCounter.name);
  private pending = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private folding?: Promise<void>;

  constructor(
    private readonly redirects: RedirectRepository,
    private readonly loggedClicks: LoggedClicks,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Counts one redirect of `code`. */
  record(code: string): void {
    this.pending.set(code, (this.pending.get(code) ?? 0) + 1);
  }

  /** Clicks counted but not yet written. */
  pendingClicks(code: string): number {
    return this.pending.get(code) ?? 0;
  }

  /** Before the server listens: the batches a crash or stop left in the click log count at once. */
  async onApplicationBootstrap(): Promise<void> {
    if (this.redirects.logsClicks) {
      for (const batch of await this.redirects.loggedClickBatches()) this.loggedClicks.add(batch);
    }
    this.timer = setInterval(() => void this.flush(), this.config.clickFlushIntervalMs);
    // The timer alone must not keep a process (a CLI, a test) alive.
    this.timer.unref();
  }

  /**
   * Nest calls this after the HTTP server has closed (so no more clicks arrive) and before the
   * global DatabaseModule disconnects: global modules' shutdown hooks run last.
   */
  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
    // A stopped service's links hold every count: nothing is left for the next start (or for
    // anyone reading the file) to add up. A paced fold under way finishes at full speed first.
    // (If the writer is gone, so is that fold: the one below starts it again.)
    if (this.folding) {
      await this.redirects.hurryClickFold().catch(() => undefined);
      await this.folding;
    }
    if (this.loggedClicks.size > 0) await this.foldClickLog();
    const lost = [...this.pending.values()].reduce((sum, clicks) => sum + clicks, 0);
    if (lost > 0) this.logger.error(`${lost} clicks could not be written before shutdown and are lost`);
  }

  /**
   * Writes everything counted so far, then on SQLite folds the click log if that is due (and
   * waits for it; later flushes do not: batches are logged while a fold runs). Never rejects:
   * failures are logged and the counts stay pending. Concurrent calls wait for the running flush
   * and then write what came in since.
   */
  async flush(): Promise<void> {
    while (this.running) await this.running;
    if (this.pending.size > 0) {
      const batch = this.pending;
      this.pending = new Map();
      this.running = this.write(batch).finally(() => {
        this.running = undefined;
      });
      await this.running;
    }
    if (this.redirects.logsClicks && !this.folding && this.foldDue()) await this.foldClickLog(this.foldSpreadMs());
  }

  private write(batch: Map<string, number>): Promise<void> {
    return this.redirects.logsClicks ? this.log(batch) : this.update(batch);
  }

  /** SQLite: the batch becomes one row of the click log. */
  private async log(batch: Map<string, number>): Promise<void> {
    // Every click in the batch was counted before this moment (see LoggedClicks.clicksNotIn).
    const closedAt = new Date();
    let id: number;
    try {
      id = await this.redirects.logClicks([...batch], closedAt);
    } catch (error) {
      this.putBack(batch);
      this.logger.warn(`Could not write click counts, will retry: ${String(error)}`);
      return;
    }
    this.loggedClicks.add({ id, closedAt, counts: batch });
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

  /**
   * SQLite: adds everything logged so far to the links: after the fold under way, if any (one
   * runs at a time), which may have started before the latest batches were logged. Spread over
   * about `spreadMs` (0, the default: as fast as it can).
   */
  async foldClickLog(spreadMs = 0): Promise<void> {
    while (this.folding) await this.folding;
    this.folding = this.fold(spreadMs).finally(() => {
      this.folding = undefined;
    });
    await this.folding;
  }

  /**
   * A fold that fails keeps its batches in the log (and in LoggedClicks), and the next one adds
   * them; rows it did update already are not counted twice.
   */
  private async fold(spreadMs: number): Promise<void> {
    try {
      this.loggedClicks.dropThrough(await this.redirects.foldClickLog(spreadMs));
    } catch (error) {
      this.logger.warn(`Could not add the click log to the links, will retry: ${String(error)}`);
    }
  }

  private putBack(counts: Iterable<readonly [string, number]>): void {
    for (const [code, clicks] of counts) this.pending.set(code, (this.pending.get(code) ?? 0) + clicks);
  }

  /** PostgreSQL: the counts go straight into `links.clicks`. */
  private async update(batch: Map<string, number>): Promise<void> {
    const entries = [...batch];
    for (let start = 0; start < entries.length; start += CLICK_FLUSH_BATCH_SIZE) {
      const chunk = entries.slice(start, start + CLICK_FLUSH_BATCH_SIZE);
      try {
        await this.redirects.addClicks(chunk);
      } catch (error) {
        // Each chunk is one transaction: a failed chunk wrote nothing, so all of it (and the
        // chunks not yet tried) goes back to be retried with whatever was counted meanwhile.
        this.putBack(entries.slice(start));
        this.logger.warn(`Could not write click counts, will retry: ${String(error)}`);
        return;
      }
    }
  }
}
