import { Module } from '@nestjs/common';
import { BlockedHostsModule } from '../blocked-hosts/blocked-hosts.module.js';
import { ClicksModule } from '../clicks/clicks.module.js';
import { IdempotencyModule } from '../idempotency/idempotency.module.js';
import { WebhookOutboxModule } from '../webhooks/outbox/webhook-outbox.module.js';
import { LinkCache } from './link-cache.js';
import { LinkResource } from './link-resource.js';
import { LinkModerationRepository } from './moderation/link-moderation.repository.js';
import { LinkModeration } from './moderation/link-moderation.service.js';
import { LinksController } from './links.controller.js';
import { LinksRepository } from './links.repository.js';
import { LinksService } from './links.service.js';
import { linkStoreProvider } from './store/link-store.provider.js';

/** Links: the owners' side (LinksService) and moderation's (LinkModeration), one store and cache. */
@Module({
  imports: [ClicksModule, IdempotencyModule, WebhookOutboxModule, BlockedHostsModule],
  controllers: [LinksController],
  providers: [
    linkStoreProvider,
    LinksRepository,
    LinksService,
    LinkResource,
    LinkModerationRepository,
    LinkModeration,
    LinkCache,
  ],
  // Shared with the redirect module, one per instance: LinkCache is invalidated here.
  exports: [LinksService, LinkModeration, LinkCache],
})
export class LinksModule {}
