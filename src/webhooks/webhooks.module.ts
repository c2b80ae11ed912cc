import { Module } from '@nestjs/common';
import { ClicksModule } from '../clicks/clicks.module.js';
import { clickSummaryStoreProvider } from './clicks/click-summary-store.provider.js';
import { WebhookClickSummaries } from './clicks/webhook-click-summaries.js';
import { WebhookOutboxModule } from './outbox/webhook-outbox.module.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksRepository } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';

/**
 * Webhooks: the API (`/api/webhooks`) and the `link.clicked` tallies added to by the click
 * flushes. The outbox itself is written by the links' writers (WebhookOutboxModule); delivering
 * it is WebhookDeliveryModule's work, in this process or another (WEBHOOK_DELIVERY).
 */
@Module({
  imports: [WebhookOutboxModule, ClicksModule],
  controllers: [WebhooksController],
  providers: [WebhooksRepository, WebhooksService, WebhookClickSummaries, clickSummaryStoreProvider],
  exports: [WebhooksService],
})
export class WebhooksModule {}
