import { Module } from '@nestjs/common';
import { ClicksModule } from '../clicks/clicks.module.js';
import { clickSummaryStoreProvider } from './clicks/click-summary-store.provider.js';
import { WebhookClickSummaries } from './clicks/webhook-click-summaries.js';
import { WebhookDispatcher } from './delivery/webhook-dispatcher.js';
import { webhookMessageStoreProvider } from './delivery/webhook-message-store.provider.js';
import { WebhookOutboxModule } from './outbox/webhook-outbox.module.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksRepository } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';

/**
 * Webhooks: the API (`/api/webhooks`), the delivery worker that sends what the outbox holds,
 * and the `link.clicked` summaries made from the click flushes.
 * The outbox itself is written by the links' writers (WebhookOutboxModule).
 */
@Module({
  imports: [WebhookOutboxModule, ClicksModule],
  controllers: [WebhooksController],
  providers: [
    WebhooksRepository,
    WebhooksService,
    WebhookDispatcher,
    webhookMessageStoreProvider,
    WebhookClickSummaries,
    clickSummaryStoreProvider,
  ],
  exports: [WebhooksService],
})
export class WebhooksModule {}
