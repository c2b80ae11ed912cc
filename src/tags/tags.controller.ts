import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentCaller, RequireScopes, type Caller } from '../auth/auth.decorators.js';
import { ApiProblemResponses } from '../common/errors/api-problem-responses.decorator.js';
import { ListTagsQueryDto, TagListDto } from './dto/tag-list.dto.js';
import { TagsService } from './tags.service.js';

@ApiTags('links')
@Controller('api/tags')
export class TagsController {
  constructor(private readonly tags: TagsService) {}

  /**
   * List the tags of your links
   * @remarks The tags your links have, sorted by tag, a page at a time (`limit` 1 to 1000, default
   * 100; `offset`, default 0; `total` counts them all), each with how many of your links have it
   * (`links`) and their all-time clicks together (`clicks`, bots included, as each link's `clicks`;
   * it may lag behind by up to the click flush interval). Filter your links by one with
   * `GET /api/links?tag=`.
   */
  @Get()
  @RequireScopes('links:read')
  @ApiOkResponse({ type: TagListDto, description: "One page of your links' tags." })
  @ApiProblemResponses('validation_failed', 'unauthorized', 'forbidden', 'rate_limited', 'service_unavailable')
  listTags(@CurrentCaller() caller: Caller, @Query() query: ListTagsQueryDto): Promise<TagListDto> {
    return this.tags.list(caller.accountId, query);
  }
}
