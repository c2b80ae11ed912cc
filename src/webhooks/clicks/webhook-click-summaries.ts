import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ClickCounter, type FlushedClicks } from '../../clicks/click-counter.js';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.tokens.js';
import { OutboxSignal } from '../outbox/outbox-signal.js';
import { WebhookSubscriptions } from '../outbox/webhook-subscriptions.js';
import { messageBody } from '../webhook-events.js';
import { ClickSummaryStore, type DueClickTally } from './click-summary-store.js';

/** Summaries are looked for this often at most (and every WEBHOOK_CLICK_INTERVAL_SECONDS if shorter). */
const MAX_TICK_MS = 5_000;

/**
 * `link.clicked`: at most one message per link per WEBHOOK_CLICK_INTERVAL_SECONDS, with the
 * clicks counted since the previous one (`clicks` all of them, bots included; `bots` the bots').
 *
 * Built from what the click flush writes anyway (ClickCounter's per-code tally, once per flush,
 * never per click): when some endpoint receives `link.clicked`, each flush adds its codes' clicks
 * to `webhook_click_tallies` in one statement (links of other accounts are skipped by it); when
 * none does, a flush costs one cached check. A tick turns the due tallies into outbox messages,
 * one instance at a time. Tallies live in the database, so a restart loses none.
 */
@Injectable()
export class WebhookClickSummaries implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly intervalMs: number;
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;

  constructor(
    private readonly store: ClickSummaryStore,
    private readonly subscriptions: WebhookSubscriptions,
    private readonly signal: OutboxSignal,
    counter: ClickCounter,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.intervalMs = config.webhooks.clickIntervalSeconds * 1000;
    counter.onFlushed((written, from) => this.add(written, from));
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.tick(), Math.min(this.intervalMs, MAX_TICK_MS));
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.ticking;
  }

  /** After a flush: its clicks join the tallies, when any endpoint receives `link.clicked`. */
  private async add(written: () => Map<string, FlushedClicks>, from: Date): Promise<void> {
    if (!(await this.subscriptions.anyReceives('link.clicked'))) return;
    const increments = [...written()].map(([code, clicks]) => ({ code, ...clicks }));
    await this.store.add(increments, from, new Date(from.getTime() + this.intervalMs));
  }

  /** Stores the summaries that are due (and runs again at once while a full batch came back). */
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

/** A `link.clicked` message: the clicks from `since` to `now`. */
export function summaryBody(tally: DueClickTally, now: Date): string {
  return messageBody(
    'link.clicked',
    {
      code: tally.code,
      clicks: tally.clicks,
      bots: tally.bots,
      from: tally.since.toISOString(),
      to: now.toISOString(),
    },
    now,
  );
}
