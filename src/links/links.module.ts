import { Module } from '@nestjs/common';
import { LinkCache } from './link-cache.js';
import { LinksController } from './links.controller.js';
import { LinksRepository } from './links.repository.js';
import { LinksService } from './links.service.js';

@Module({
  controllers: [LinksController],
  providers: [LinksRepository, LinksService, LinkCache],
  // LinkCache is shared with the redirect module: one cache per instance, invalidated here.
  exports: [LinksService, LinkCache],
})
export class LinksModule {}
