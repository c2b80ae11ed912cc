import { Module } from '@nestjs/common';
import { LinksModule } from '../links/links.module.js';
import { LinkInvalidationBus } from './link-invalidation.bus.js';

/** What lets several instances on one database and one Redis behave as one service. */
@Module({ imports: [LinksModule], providers: [LinkInvalidationBus] })
export class ScaleOutModule {}
