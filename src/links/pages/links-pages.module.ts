import { Module } from '@nestjs/common';
import { ClicksModule } from '../../clicks/clicks.module.js';
import { PagesModule } from '../../pages/pages.module.js';
import { LinksModule } from '../links.module.js';
import { LinksPagesController } from './links.pages.controller.js';

@Module({
  imports: [LinksModule, ClicksModule, PagesModule],
  controllers: [LinksPagesController],
})
export class LinksPagesModule {}
