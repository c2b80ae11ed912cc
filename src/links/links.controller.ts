import {
  Body,
  Controller,
  Delete,
  Get,
  Header,
  HttpCode,
  HttpStatus,
  Param,
  Post,
  Put,
  Query,
  Res,
} from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import {
  CurrentCaller,
  OptionalScopes,
  RequireScopes,
  VerifiedEmailToCreate,
  type Caller,
} from '../auth/auth.decorators.js';
import { ApiTokenBodyProblems, ApiTokenProblems } from '../common/errors/api-problem-responses.decorator.js';
import { ApiCreatedWithLocation } from '../common/http/created-with-location.decorator.js';
import { apiErrorProblem } from '../common/errors/problem.js';
import { AnonymousCreation } from '../rate-limit/rate-limit.decorators.js';
import { BulkCreateLinksDto, BulkCreateLinksResponseDto } from './dto/bulk-create-links.dto.js';
import { Idempotent } from '../idempotency/idempotency.interceptor.js';
import { CreateLinkDto } from './dto/create-link.dto.js';
import { ListLinksQueryDto } from './dto/list-links-query.dto.js';
import { LinkDto, LinkListDto } from './dto/link.dto.js';
import { UpdateLinkDto } from './dto/update-link.dto.js';
import { LinksService } from './links.service.js';

/** The `{code}` path parameter of every per-link operation. */
const CODE_PARAM = ApiParam({
  name: 'code',
  description: 'The short code of one of your links',
  schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{3,64}$', example: 'Ab3dE9x' },
});

@ApiTags('links')
@Controller('api/links')
export class LinksController {
  constructor(private readonly links: LinksService) {}

  /**
   * Create a short link
   * @remarks With a token (scope `links:write`) the link belongs to the token's account, can be
   * listed, read, updated and deleted later, and may use a `custom_code` and `tags`. Without a
   * token it is anonymous: it belongs to no account and can never be changed; `custom_code` or
   * `tags` then answer 401. A token that is sent but invalid or revoked answers 401, never an
   * anonymous link. A generated code is 7 characters from `[0-9A-Za-z]`. The answer's `Location`
   * header is the link's URL.
   */
  @Post()
  @OptionalScopes('links:write')
  @VerifiedEmailToCreate()
  @Idempotent()
  // Without a token this counts against the client IP's anonymous limit, shared with GET /api/s.
  @AnonymousCreation()
  @ApiCreatedWithLocation(LinkDto, 'The link was created.', 'link', '/api/links/{code}', '/api/links/Ab3dE9x')
  @ApiTokenBodyProblems(
    'invalid_url',
    'invalid_code',
    'code_taken',
    'email_unverified',
    'idempotency_key_in_use',
    'idempotency_key_reused',
  )
  async createLink(
    @CurrentCaller() caller: Caller | undefined,
    @Body() body: CreateLinkDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<LinkDto> {
    const link = await this.links.create(caller?.accountId, body);
    void reply.header('Location', `/api/links/${link.code}`);
    return link;
  }

  /**
   * Create many links at once
   * @remarks 1 to 1000 items, each as the body of `POST /api/links` (`url`, optional
   * `custom_code`, `expires_at` and `tags`). Each item is checked and created on its own:
   * `data[i]` is `{"link": …}` or `{"error": problem}` for `links[i]`, so one bad item does not
   * sink the others, and a custom code used twice in one call is `code_taken` the second time.
   * The call answers 200 whatever the items' outcomes; a body that is not 1 to 1000 objects is
   * refused whole (400) and creates nothing. Counts as one call for the rate limit. Bodies up to
   * 10 MiB.
   */
  @Post('bulk')
  @RequireScopes('links:write')
  @VerifiedEmailToCreate()
  @Idempotent()
  @HttpCode(HttpStatus.OK)
  @ApiOkResponse({ type: BulkCreateLinksResponseDto, description: 'One result per item, in request order.' })
  @ApiTokenBodyProblems('email_unverified', 'idempotency_key_in_use', 'idempotency_key_reused')
  async createLinks(
    @CurrentCaller() caller: Caller,
    @Body() body: BulkCreateLinksDto,
  ): Promise<BulkCreateLinksResponseDto> {
    const results = await this.links.createMany(caller.accountId, body.links);
    return {
      data: results.map((result) => ('link' in result ? result : { error: apiErrorProblem(result.error) })),
    };
  }

  /**
   * List or search your links
   * @remarks Newest first (`created_at` descending, then `code`), paginated with `limit` (1 to 100,
   * default 20) and `offset` (default 0). With `q`, only links whose code or URL contains it
   * (case-insensitive; `%` and `_` match themselves); with `tag`, only links with that tag (both
   * together: links that match both). `total` counts the matches. Anonymous links are never
   * listed or counted.
   */
  @Get()
  @RequireScopes('links:read')
  @ApiOkResponse({ type: LinkListDto, description: 'One page of your links, newest first.' })
  @ApiTokenProblems('validation_failed')
  listLinks(@CurrentCaller() caller: Caller, @Query() query: ListLinksQueryDto): Promise<LinkListDto> {
    return this.links.list(caller.accountId, query);
  }

  /**
   * Get one of your links
   * @remarks A code that is unknown, deleted, anonymous or another account's answers 404.
   */
  @Get(':code')
  @RequireScopes('links:read')
  @CODE_PARAM
  @ApiOkResponse({ type: LinkDto, description: 'The link.' })
  @ApiTokenProblems('not_found')
  getLink(@CurrentCaller() caller: Caller, @Param('code') code: string): Promise<LinkDto> {
    return this.links.get(caller.accountId, code);
  }

  /**
   * QR code of a link's short URL
   * @remarks An SVG image (`image/svg+xml`) encoding `short_url`, for print and screens; scales
   * to any size. Error correction level M, with the standard quiet zone.
   */
  @Get(':code/qr')
  @RequireScopes('links:read')
  @CODE_PARAM
  @ApiProduces('image/svg+xml')
  @Header('Content-Type', 'image/svg+xml; charset=utf-8')
  // The image depends on the short URL alone, which a link keeps for life.
  @Header('Cache-Control', 'private, max-age=3600')
  @ApiOkResponse({
    description: 'The QR code as an SVG image.',
    content: {
      'image/svg+xml': { schema: { type: 'string', example: '<svg xmlns="http://www.w3.org/2000/svg" …</svg>' } },
    },
  })
  @ApiTokenProblems('not_found')
  getQrCode(@CurrentCaller() caller: Caller, @Param('code') code: string): Promise<string> {
    return this.links.qrCode(caller.accountId, code);
  }

  /**
   * Change a link's target, expiry or tags
   * @remarks The short URL keeps its code; redirects follow the change at once, on every
   * instance. The body has any of `url` (same rules as on creation), `expires_at` (a future
   * date-time, or `null` to remove the expiry) and `tags` (the link's tags from now on, `[]` to
   * remove them all; `null` is refused). A field left out keeps its value.
   */
  @Put(':code')
  @RequireScopes('links:write')
  @CODE_PARAM
  @ApiOkResponse({ type: LinkDto, description: 'The updated link.' })
  @ApiTokenBodyProblems('invalid_url', 'not_found')
  updateLink(
    @CurrentCaller() caller: Caller,
    @Param('code') code: string,
    @Body() body: UpdateLinkDto,
  ): Promise<LinkDto> {
    return this.links.update(caller.accountId, code, body);
  }

  /**
   * Delete one of your links
   * @remarks The link is destroyed for good: redirect, get, list and a second delete answer 404,
   * and its code is free to be used again.
   */
  @Delete(':code')
  @RequireScopes('links:write')
  @HttpCode(HttpStatus.NO_CONTENT)
  @CODE_PARAM
  @ApiNoContentResponse({ description: 'The link is gone; its code is free again.' })
  @ApiTokenProblems('not_found')
  deleteLink(@CurrentCaller() caller: Caller, @Param('code') code: string): Promise<void> {
    return this.links.remove(caller.accountId, code);
  }
}
