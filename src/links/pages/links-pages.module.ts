import { Module } from '@nestjs/common';
import { ClicksModule } from '../../clicks/clicks.module.js';
import { PagesModule } from '../../pages/pages.module.js';
import { RedirectModule } from '../../redirect/redirect.module.js';
import { LinksModule } from '../links.module.js';
import { LinksPagesController } from './links.pages.controller.js';

@Module({
  imports: [LinksModule, ClicksModule, PagesModule, RedirectModule],
  controllers: [LinksPagesController],
})
export class LinksPagesModule {}
