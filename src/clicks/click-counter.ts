import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { ClickSink } from './click-sink.js';
import {
  addReferrer,
  mergeTally,
  nextUtcMidnight,
  referrerHost,
  totalClicks,
  utcDay,
  type ClickTally,
} from './click-tally.js';

/**
 * Counts redirects in memory, by code, UTC day and referrer host, and writes them in batches
 * (one ClickSink per database kind), so a redirect never waits for (or causes) a database write.
 * Counts are flushed every `CLICK_FLUSH_INTERVAL_MS` and when the application shuts down; the
 * API lags by up to one interval. A flush that fails keeps its counts for the next one; only a
 * crash (or a database that stays down through shutdown) loses the clicks of the last interval.
 *
 * A click's day is taken when it is counted, so a flush that spans midnight puts each click in
 * its own day.
 */
@Injectable()
export class ClickCounter implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ClickCounter.name);
  private pending: ClickTally = new Map();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private day = '';
  private dayEndsAt = 0;

  constructor(
    private readonly sink: ClickSink,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Counts one redirect of `code`; `referer`: the request's `Referer` header, if any. */
  record(code: string, referer?: string): void {
    const now = Date.now();
    if (now >= this.dayEndsAt) {
      this.day = utcDay(now);
      this.dayEndsAt = nextUtcMidnight(now);
    }
    let days = this.pending.get(code);
    if (days === undefined) {
      days = new Map();
      this.pending.set(code, days);
    }
    let tally = days.get(this.day);
    if (tally === undefined) {
      tally = { clicks: 0, referrers: new Map() };
      days.set(this.day, tally);
    }
    tally.clicks++;
    addReferrer(tally, referrerHost(referer), 1);
  }

  /** Clicks of `code` counted but not yet written. */
  pendingClicks(code: string): number {
    const days = this.pending.get(code);
    return days ? totalClicks(days) : 0;
  }

  /** Every click counted but not yet written (the metrics' `shortlink_clicks_pending`). */
  pendingTotal(): number {
    let total = 0;
    for (const days of this.pending.values()) total += totalClicks(days);
    return total;
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.sink.start();
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
    await this.sink.stop();
    let lost = 0;
    for (const days of this.pending.values()) lost += totalClicks(days);
    if (lost > 0) this.logger.error(`${lost} clicks could not be written before shutdown and are lost`);
  }

  /**
   * Writes everything counted so far, then lets the sink do its follow-up work (SQLite: a fold
   * when due). Never rejects: failures are logged by the sink and the counts stay pending.
   * Concurrent calls wait for the running flush and then write what came in since.
   */
  async flush(): Promise<void> {
    while (this.running) await this.running;
    if (this.pending.size > 0) {
      const batch = this.pending;
      this.pending = new Map();
      this.running = this.sink
        .write(batch)
        .then((unwritten) => this.putBack(unwritten))
        .finally(() => {
          this.running = undefined;
        });
      await this.running;
    }
    await this.sink.afterFlush();
  }

  private putBack(unwritten: ClickTally): void {
    if (unwritten.size === 0) return;
    mergeTally(unwritten, this.pending);
    this.pending = unwritten;
  }
}
