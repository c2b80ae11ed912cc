import { Module } from '@nestjs/common';
import { ClicksModule } from '../clicks/clicks.module.js';
import { TagsController } from './tags.controller.js';
import { TagsRepository } from './tags.repository.js';
import { TagsService } from './tags.service.js';

/**
 * `GET /api/tags`: the tags of an account's links. Tags are written with their links (the links
 * module: rules in links/link-tags.ts, storage in LinksRepository and the LinkStore).
 */
@Module({
  imports: [ClicksModule],
  controllers: [TagsController],
  providers: [TagsRepository, TagsService],
})
export class TagsModule {}
