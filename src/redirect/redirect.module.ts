import { Module } from '@nestjs/common';
import { ClicksModule } from '../clicks/clicks.module.js';
import { LinksModule } from '../links/links.module.js';
import { LinkPasswordGuesses } from './link-password-guesses.js';
import { redirectLookupProvider } from './redirect-lookup.js';
import { RedirectFastPath } from './redirect-fast-path.js';
import { RedirectController } from './redirect.controller.js';
import { RedirectService } from './redirect.service.js';

@Module({
  imports: [LinksModule, ClicksModule],
  controllers: [RedirectController],
  providers: [redirectLookupProvider, RedirectService, RedirectFastPath, LinkPasswordGuesses],
  // The link page tells the owner about the wrong passwords tried on a link.
  exports: [LinkPasswordGuesses],
})
export class RedirectModule {}
