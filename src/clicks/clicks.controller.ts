import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentCaller, RequireScopes, type Caller } from '../auth/auth.decorators.js';
import { ApiProblemResponses } from '../common/errors/api-problem-responses.decorator.js';
import { ClicksService } from './clicks.service.js';
import { DEFAULT_CLICK_DAYS, LinkClicksDto, LinkClicksQueryDto } from './dto/link-clicks.dto.js';

@ApiTags('links')
@Controller('api/links')
export class ClicksController {
  constructor(private readonly clicks: ClicksService) {}

  /**
   * Get a link's clicks per day and top referrers
   * @remarks `total` is the all-time count (the link's `clicks`); `days` holds every UTC day of
   * the window (`days`, 1 to 366, default 30), oldest first, today last, zeros included;
   * `referrers` the 10 hosts whose pages sent the most clicks over the window (`(direct)`: no
   * `Referer`). A redirect counts as a click when it is a `GET` (not a `HEAD`). Counts are
   * written in batches and may lag behind by up to the click flush interval. Only the host of a
   * referrer is kept: no IP address, user agent or full referrer URL. A code that is unknown,
   * deleted, anonymous or another account's answers 404.
   */
  @Get(':code/clicks')
  @RequireScopes('links:read')
  @ApiParam({
    name: 'code',
    description: 'The short code of one of your links',
    schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{3,64}$', example: 'Ab3dE9x' },
  })
  @ApiOkResponse({ type: LinkClicksDto, description: "The link's clicks." })
  @ApiProblemResponses(
    'validation_failed',
    'unauthorized',
    'forbidden',
    'not_found',
    'rate_limited',
    'service_unavailable',
  )
  linkClicks(
    @CurrentCaller() caller: Caller,
    @Param('code') code: string,
    @Query() query: LinkClicksQueryDto,
  ): Promise<LinkClicksDto> {
    return this.clicks.linkClicks(caller.accountId, code, query.days ?? DEFAULT_CLICK_DAYS);
  }
}
