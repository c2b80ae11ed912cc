import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { LinksModule } from '../links/links.module.js';
import { LinkChangeFeed } from './link-change-feed.js';
import { linkChangeStoreProvider } from './link-change-store.js';
import { LinkInvalidationBus } from './link-invalidation.bus.js';

/**
 * What lets several processes on one database (and one Redis, where set) behave as one service:
 * every change to a link is told to the others. Imported by the `shortlink` command too, whose
 * changes reach the running instances as the API's do.
 */
@Module({
  imports: [LinksModule],
  providers: [LinkInvalidationBus, linkChangeStoreProvider, LinkChangeFeed],
  exports: [LinkChangeFeed],
})
export class ScaleOutModule {}

/** Starts hearing the other processes' changes through the database (see LinkChangeFeed). */
@Injectable()
class LinkChangeListener implements OnModuleInit {
  constructor(private readonly feed: LinkChangeFeed) {}

  onModuleInit(): Promise<void> {
    return this.feed.listen();
  }
}

/** ScaleOutModule for a process that serves redirects: it also hears the others' changes. */
@Module({ imports: [ScaleOutModule], providers: [LinkChangeListener] })
export class ServingScaleOutModule {}
