import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, OptionalScopes, RequireScopes, type Caller } from '../auth/auth.decorators.js';
import { ApiProblemResponses } from '../common/errors/api-problem-responses.decorator.js';
import { PaginationQueryDto } from '../common/pagination/pagination-query.dto.js';
import { AnonymousCreation } from '../rate-limit/rate-limit.decorators.js';
import { CreateLinkDto } from './dto/create-link.dto.js';
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
   * listed, read, updated and deleted later, and may use a `custom_code`. Without a token it is
   * anonymous: it belongs to no account and can never be changed; `custom_code` then answers 401.
   * A token that is sent but invalid or revoked answers 401, never an anonymous link. A generated
   * code is 7 characters from `[0-9A-Za-z]`. The answer's `Location` header is the link's URL.
   */
  @Post()
  @OptionalScopes('links:write')
  // Without a token this counts against the client IP's anonymous limit, shared with GET /api/s.
  @AnonymousCreation()
  @ApiCreatedResponse({
    type: LinkDto,
    description: 'The link was created.',
    headers: {
      Location: {
        description: 'Where the new link can be read: `/api/links/{code}`',
        schema: { type: 'string', example: '/api/links/Ab3dE9x' },
      },
    },
  })
  @ApiProblemResponses(
    'invalid_url',
    'invalid_code',
    'validation_failed',
    'invalid_json',
    'unauthorized',
    'forbidden',
    'code_taken',
    'payload_too_large',
    'unsupported_media_type',
    'rate_limited',
    'service_unavailable',
  )
  async createLink(
    @CurrentCaller() caller: Caller | undefined,
    @Body() body: CreateLinkDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<LinkDto> {
    const link = await this.links.create(caller, body);
    void reply.header('Location', `/api/links/${link.code}`);
    return link;
  }

  /**
   * List your links
   * @remarks Newest first (`created_at` descending, then `code`), paginated with `limit` (1 to 100,
   * default 20) and `offset` (default 0). Anonymous links are never listed or counted.
   */
  @Get()
  @RequireScopes('links:read')
  @ApiOkResponse({ type: LinkListDto, description: 'One page of your links, newest first.' })
  @ApiProblemResponses('validation_failed', 'unauthorized', 'forbidden', 'rate_limited', 'service_unavailable')
  listLinks(@CurrentCaller() caller: Caller, @Query() query: PaginationQueryDto): Promise<LinkListDto> {
    return this.links.list(caller, query);
  }

  /**
   * Get one of your links
   * @remarks A code that is unknown, deleted, anonymous or another account's answers 404.
   */
  @Get(':code')
  @RequireScopes('links:read')
  @CODE_PARAM
  @ApiOkResponse({ type: LinkDto, description: 'The link.' })
  @ApiProblemResponses('unauthorized', 'forbidden', 'not_found', 'rate_limited', 'service_unavailable')
  getLink(@CurrentCaller() caller: Caller, @Param('code') code: string): Promise<LinkDto> {
    return this.links.get(caller, code);
  }

  /**
   * Change a link's target
   * @remarks The short URL keeps its code; redirects follow the new target at once. The body needs
   * `url` (same rules as on creation) and nothing else.
   */
  @Put(':code')
  @RequireScopes('links:write')
  @CODE_PARAM
  @ApiOkResponse({ type: LinkDto, description: 'The updated link.' })
  @ApiProblemResponses(
    'invalid_url',
    'validation_failed',
    'invalid_json',
    'unauthorized',
    'forbidden',
    'not_found',
    'payload_too_large',
    'unsupported_media_type',
    'rate_limited',
    'service_unavailable',
  )
  updateLink(
    @CurrentCaller() caller: Caller,
    @Param('code') code: string,
    @Body() body: UpdateLinkDto,
  ): Promise<LinkDto> {
    return this.links.updateUrl(caller, code, body.url);
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
  @ApiProblemResponses('unauthorized', 'forbidden', 'not_found', 'rate_limited', 'service_unavailable')
  deleteLink(@CurrentCaller() caller: Caller, @Param('code') code: string): Promise<void> {
    return this.links.remove(caller, code);
  }
}
