import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CurrentCaller, RequireScopes, type Caller } from '../auth/auth.decorators.js';
import { ApiProblemResponses } from '../common/errors/api-problem-responses.decorator.js';
import { TagListDto } from './dto/tag-list.dto.js';
import { TagsService } from './tags.service.js';

@ApiTags('links')
@Controller('api/tags')
export class TagsController {
  constructor(private readonly tags: TagsService) {}

  /**
   * List the tags of your links
   * @remarks Every tag at least one of your links has, sorted by tag, with how many of your links
   * have it (`links`) and their all-time clicks together (`clicks`, bots included, as each link's
   * `clicks`; it may lag behind by up to the click flush interval). Filter your links by one with
   * `GET /api/links?tag=`.
   */
  @Get()
  @RequireScopes('links:read')
  @ApiOkResponse({ type: TagListDto, description: "Your links' tags." })
  @ApiProblemResponses('unauthorized', 'forbidden', 'rate_limited', 'service_unavailable')
  listTags(@CurrentCaller() caller: Caller): Promise<TagListDto> {
    return this.tags.list(caller.accountId);
  }
}
