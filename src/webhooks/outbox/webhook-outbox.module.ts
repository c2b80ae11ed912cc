import { Module } from '@nestjs/common';
import { OutboxSignal } from './outbox-signal.js';
import { WebhookOutbox } from './webhook-outbox.js';
import { WebhookSubscriptions } from './webhook-subscriptions.js';

/**
 * What writers of links need of webhooks (the links module imports it): whether an account's
 * endpoints receive an event, and the outbox's Prisma writes. The webhooks API and the delivery
 * worker live in WebhooksModule.
 */
@Module({
  providers: [WebhookOutbox, WebhookSubscriptions, OutboxSignal],
  exports: [WebhookOutbox, WebhookSubscriptions, OutboxSignal],
})
export class WebhookOutboxModule {}
