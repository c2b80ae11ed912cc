import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { RedirectRepository } from './redirect.repository.js';

/** Codes written per transaction: keeps one flush of a busy minute from becoming one huge statement batch. */
export const CLICK_FLUSH_BATCH_SIZE = 500;

/**
 * Counts redirects in memory and writes them in batches, so a redirect never waits for (or
 * causes) a database write. Counts are flushed every `CLICK_FLUSH_INTERVAL_MS` and when the
 * application shuts down; the API's `clicks` lag by up to one interval. A flush that fails keeps
 * its counts for the next one; only a crash (or a database that stays down through shutdown)
 * loses the clicks of the last interval.
 */
@Injectable()
export class ClickCounter implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ClickCounter.name);
  private pending = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly redirects: RedirectRepository,
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

  onApplicationBootstrap(): void {
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
    const lost = [...this.pending.values()].reduce((sum, clicks) => sum + clicks, 0);
    if (lost > 0) this.logger.error(`${lost} clicks could not be written before shutdown and are lost`);
  }

  /**
   * Writes everything counted so far. Never rejects: failures are logged and the counts stay
   * pending. Concurrent calls wait for the running flush and then write what came in since.
   */
  async flush(): Promise<void> {
    while (this.running) await this.running;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.running = this.write(batch).finally(() => {
      this.running = undefined;
    });
    await this.running;
  }

  private async write(batch: Map<string, number>): Promise<void> {
    const entries = [...batch];
    for (let start = 0; start < entries.length; start += CLICK_FLUSH_BATCH_SIZE) {
      const chunk = entries.slice(start, start + CLICK_FLUSH_BATCH_SIZE);
      try {
        await this.redirects.addClicks(chunk);
      } catch (error) {
        // Each chunk is one transaction: a failed chunk wrote nothing, so all of it (and the
        // chunks not yet tried) goes back to be retried with whatever was counted meanwhile.
        for (const [code, clicks] of entries.slice(start)) {
          this.pending.set(code, (this.pending.get(code) ?? 0) + clicks);
        }
        this.logger.warn(`Could not write click counts, will retry: ${String(error)}`);
        return;
      }
    }
  }
}
