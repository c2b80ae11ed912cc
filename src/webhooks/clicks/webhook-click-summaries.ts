import { Inject, Injectable } from '@nestjs/common';
import { ClickCounter, type FlushedClicks } from '../../clicks/click-counter.js';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.tokens.js';
import { WebhookSubscriptions } from '../outbox/webhook-subscriptions.js';
import { messageBody } from '../webhook-events.js';
import { ClickSummaryStore, type DueClickTally } from './click-summary-store.js';

/**
 * `link.clicked`: at most one message per link per WEBHOOK_CLICK_INTERVAL_SECONDS, with the
 * clicks counted since the previous one (`clicks` all of them, bots included; `bots` the bots').
 *
 * Built from what the click flush writes anyway (ClickCounter's per-code tally, once per flush,
 * never per click): when some endpoint receives `link.clicked`, each flush adds its codes' clicks
 * to `webhook_click_tallies` in one statement (links of other accounts are skipped by it); when
 * none does, a flush costs one cached check. This part runs where the clicks are counted, on
 * every instance; turning due tallies into outbox messages is delivery's work (ClickSummaryTicker).
 * Tallies live in the database, so a restart loses none.
 */
@Injectable()
export class WebhookClickSummaries {
  private readonly intervalMs: number;

  constructor(
    private readonly store: ClickSummaryStore,
    private readonly subscriptions: WebhookSubscriptions,
    counter: ClickCounter,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.intervalMs = config.webhooks.clickIntervalSeconds * 1000;
    counter.onFlushed((written, from) => this.add(written, from));
  }

  /** After a flush: its clicks join the tallies, when any endpoint receives `link.clicked`. */
  private async add(written: () => Map<string, FlushedClicks>, from: Date): Promise<void> {
    if (!(await this.subscriptions.anyReceives('link.clicked'))) return;
    const increments = [...written()].map(([code, clicks]) => ({ code, ...clicks }));
    await this.store.add(increments, from, new Date(from.getTime() + this.intervalMs));
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
