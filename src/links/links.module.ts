import { Module } from '@nestjs/common';
import { LinkCache } from './link-cache.js';
import { LinksController } from './links.controller.js';
import { LinksRepository } from './links.repository.js';
import { LinksService } from './links.service.js';
import { LoggedClicks } from './logged-clicks.js';

@Module({
  controllers: [LinksController],
  providers: [LinksRepository, LinksService, LinkCache, LoggedClicks],
  // Shared with the redirect module, one of each per instance: LinkCache is invalidated here,
  // LoggedClicks filled by the click counter and read here.
  exports: [LinksService, LinkCache, LoggedClicks],
})
export class LinksModule {}
