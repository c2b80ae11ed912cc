import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.tokens.js';
import { OutboxSignal } from '../outbox/outbox-signal.js';
import { ClickSummaryStore } from './click-summary-store.js';
import { summaryBody } from './webhook-click-summaries.js';

/** Summaries are looked for this often at most (and every WEBHOOK_CLICK_INTERVAL_SECONDS if shorter). */
const MAX_TICK_MS = 5_000;

/**
 * Turns the `link.clicked` tallies that are due into outbox messages (one instance per tally, see
 * ClickSummaryStore.emit), on a timer. It belongs to delivery, not to the click flush: it runs
 * beside the delivery worker (WEBHOOK_DELIVERY=inline, or `shortlink webhooks worker`), so an
 * instance with delivery off keeps no webhook timer at all, and the messages it stores are
 * claimed by the worker beside it at once (the signal).
 */
@Injectable()
export class ClickSummaryTicker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly intervalMs: number;
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;

  constructor(
    private readonly store: ClickSummaryStore,
    private readonly signal: OutboxSignal,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.intervalMs = config.webhooks.clickIntervalSeconds * 1000;
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), Math.min(this.intervalMs, MAX_TICK_MS));
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.ticking;
  }

  /** Stores the summaries that are due. */
  tick(): Promise<void> {
    this.ticking ??= this.emitDue().finally(() => {
      this.ticking = undefined;
    });
    return this.ticking;
  }

  private async emitDue(): Promise<void> {
    try {
      const now = new Date();
      const emitted = await this.store.emit(now, new Date(now.getTime() + this.intervalMs), (tally) =>
        summaryBody(tally, now),
      );
      if (emitted > 0) this.signal.notify();
    } catch (error) {
      this.logger.warn(`Could not store link.clicked summaries: ${String(error)}`);
    }
  }
}
