import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentCaller, RequireScopes, type Caller } from '../auth/auth.decorators.js';
import { ApiProblemResponses } from '../common/errors/api-problem-responses.decorator.js';
import { ClicksService } from './clicks.service.js';
import { AccountClicksDto, DEFAULT_CLICK_DAYS, LinkClicksDto, LinkClicksQueryDto } from './dto/link-clicks.dto.js';

@ApiTags('links')
@Controller('api')
export class ClicksController {
  constructor(private readonly clicks: ClicksService) {}

  /**
   * Get the clicks of all your links
   * @remarks Over the window (`days`, 1 to 366, default 30): `total` and `bots` count every
   * click on the account's links (bots included in `total`, as in `days[].clicks`); `days` holds
   * every UTC day, oldest first, today last, zeros included; `links` the 10 links with most
   * clicks (bots included); `countries` and `referrers` the top 10 of people's clicks (bots left
   * out), as on one link. Counts may lag behind by up to the click flush interval.
   */
  @Get('clicks')
  @RequireScopes('links:read')
  @ApiOkResponse({ type: AccountClicksDto, description: "The account's clicks." })
  @ApiProblemResponses('validation_failed', 'unauthorized', 'forbidden', 'rate_limited', 'service_unavailable')
  accountClicks(@CurrentCaller() caller: Caller, @Query() query: LinkClicksQueryDto): Promise<AccountClicksDto> {
    return this.clicks.accountClicks(caller.accountId, query.days ?? DEFAULT_CLICK_DAYS);
  }

  /**
   * Get a link's clicks per day, top referrers, countries, devices, browsers and systems
   * @remarks `total` is the all-time count (the link's `clicks`); `days` holds every UTC day of
   * the window (`days`, 1 to 366, default 30), oldest first, today last, zeros included, each
   * with its bots' clicks (`bots`: crawlers, link-preview fetchers, monitors, headless browsers
   * and scripts, by `User-Agent`; none counts as a bot). Over the window's people's clicks (bots
   * left out): `referrers` the 10 hosts whose pages sent the most (`(direct)`: no `Referer`),
   * `countries` (from the client's IP address, `ZZ` unknown), `devices`, `browsers` and `os` (from
   * the `User-Agent`), top 10 each. A redirect counts as a click when it is a `GET` (not a
   * `HEAD`). Counts are written in batches and may lag behind by up to the click flush interval.
   * Only these labels are kept: no IP address, user agent or full referrer URL. A code that is
   * unknown, deleted, anonymous or another account's answers 404.
   */
  @Get('links/:code/clicks')
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
