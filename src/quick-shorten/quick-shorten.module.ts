import { Module } from '@nestjs/common';
import { LinksModule } from '../links/links.module.js';
import { QuickShortenController } from './quick-shorten.controller.js';
import { QuickShortenService } from './quick-shorten.service.js';

@Module({
  imports: [LinksModule],
  controllers: [QuickShortenController],
  providers: [QuickShortenService],
})
export class QuickShortenModule {}
