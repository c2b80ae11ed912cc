import { Module } from '@nestjs/common';
import { LinksModule } from '../links/links.module.js';
import { ClickCounter } from './click-counter.js';
import { RedirectLookup } from './redirect-lookup.js';
import { RedirectFastPath } from './redirect-fast-path.js';
import { RedirectController } from './redirect.controller.js';
import { RedirectRepository } from './redirect.repository.js';
import { RedirectService } from './redirect.service.js';

@Module({
  imports: [LinksModule],
  controllers: [RedirectController],
  providers: [RedirectLookup, RedirectRepository, RedirectService, ClickCounter, RedirectFastPath],
})
export class RedirectModule {}
