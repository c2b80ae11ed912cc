import { Module } from '@nestjs/common';
import { PagesModule } from '../../pages/pages.module.js';
import { WebhooksModule } from '../webhooks.module.js';
import { WebhooksPagesController } from './webhooks.pages.controller.js';

@Module({
  imports: [WebhooksModule, PagesModule],
  controllers: [WebhooksPagesController],
})
export class WebhooksPagesModule {}
