import { Module } from '@nestjs/common';
import { WebhookDispatcher } from './delivery/webhook-dispatcher.js';
import { webhookMessageStoreProvider } from './delivery/webhook-message-store.provider.js';
import { WebhookOutboxModule } from './outbox/webhook-outbox.module.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksRepository } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';

/**
 * Webhooks: the API (`/api/webhooks`), and the delivery worker that sends what the outbox holds.
 * The outbox itself is written by the links' writers (WebhookOutboxModule).
 */
@Module({
  imports: [WebhookOutboxModule],
  controllers: [WebhooksController],
  providers: [WebhooksRepository, WebhooksService, WebhookDispatcher, webhookMessageStoreProvider],
  exports: [WebhooksService],
})
export class WebhooksModule {}
