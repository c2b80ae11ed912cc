import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, RequireScopes, type Caller } from '../auth/auth.decorators.js';
import { ADMIN_SCOPE } from '../auth/scopes.js';
import { DEFAULT_PAGE_SIZE } from '../common/pagination/pagination-query.dto.js';
import { ApiProblemResponses } from '../common/errors/api-problem-responses.decorator.js';
import { LinkDto } from '../links/dto/link.dto.js';
import { AdminService } from './admin.service.js';
import {
  AdminLinkListDto,
  BlockedHostCreatedDto,
  BlockedHostListDto,
  BlockHostDto,
  DisableLinkDto,
  ListAdminLinksQueryDto,
  ListReportsQueryDto,
  ReportListDto,
} from './dto/admin.dto.js';

const CODE_PARAM = ApiParam({
  name: 'code',
  description: 'The short code of any link of the instance',
  schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{3,64}$', example: 'Ab3dE9x' },
});

/**
 * The instance's administration: a token with the scope `admin`, which only an admin's token may
 * hold (`shortlink token create <email> --scopes admin,…`). Every change is in the audit log.
 */
@ApiTags('admin')
@Controller('api/admin')
@RequireScopes(ADMIN_SCOPE)
export class AdminController {
  constructor(private readonly admin: AdminService) {}

  /**
   * List the blocked hosts
   * @remarks In name order. A blocked host blocks its subdomains too.
   */
  @Get('blocked-hosts')
  @ApiOkResponse({ type: BlockedHostListDto, description: 'Every blocked host.' })
  @ApiProblemResponses('unauthorized', 'forbidden', 'rate_limited', 'service_unavailable')
  async listBlockedHosts(): Promise<BlockedHostListDto> {
    return { data: await this.admin.listBlockedHosts() };
  }

  /**
   * Block a host
   * @remarks The host and its subdomains, on every port and scheme: creating or changing a link
   * to one answers 400 `blocked_url`, and every live link to one is disabled at once, on every
   * instance (its redirect answers 410). The host is normalised (lower case, punycode, no
   * trailing dot); a URL, a port or a single label is refused (400). Blocking a blocked host is
   * 409 `admin_conflict`.
   */
  @Post('blocked-hosts')
  @ApiCreatedResponse({
    type: BlockedHostCreatedDto,
    description: 'The host is blocked; `disabled_links` says how many links it disabled.',
    headers: {
      Location: {
        description: '`/api/admin/blocked-hosts/{host}`',
        schema: { type: 'string', example: '/api/admin/blocked-hosts/evil.example' },
      },
    },
  })
  @ApiProblemResponses(
    'validation_failed',
    'invalid_json',
    'unauthorized',
    'forbidden',
    'admin_conflict',
    'payload_too_large',
    'unsupported_media_type',
    'rate_limited',
    'service_unavailable',
  )
  async blockHost(
    @CurrentCaller() caller: Caller,
    @Body() body: BlockHostDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<BlockedHostCreatedDto> {
    const blocked = await this.admin.blockHost(await this.admin.actor(caller.accountId, 'api'), body.host);
    void reply.header('Location', `/api/admin/blocked-hosts/${encodeURIComponent(blocked.host)}`);
    return blocked;
  }

  /**
   * Unblock a host
   * @remarks Links to it can be created again, and the links its block disabled are live again
   * (those an admin disabled by hand stay disabled, and so do those another blocked host or a
   * disabled account holds). The host may be written as when it was blocked.
   */
  @Delete('blocked-hosts/:host')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ApiParam({ name: 'host', schema: { type: 'string', example: 'evil.example' } })
  @ApiNoContentResponse({ description: 'The host is no longer blocked.' })
  @ApiProblemResponses(
    'validation_failed',
    'unauthorized',
    'forbidden',
    'not_found',
    'rate_limited',
    'service_unavailable',
  )
  async unblockHost(@CurrentCaller() caller: Caller, @Param('host') host: string): Promise<void> {
    await this.admin.unblockHost(await this.admin.actor(caller.accountId, 'api'), host);
  }

  /**
   * List or search every account's links
   * @remarks Anonymous links too, newest first, with their owner, state and every destination
   * (`url`, `ios_url`, `android_url`). `q` finds the links whose code or any destination
   * contains it: search a phishing host and find the links that send only phones there.
   * `account` keeps one account's links.
   */
  @Get('links')
  @ApiOkResponse({ type: AdminLinkListDto, description: 'One page of links.' })
  @ApiProblemResponses('validation_failed', 'unauthorized', 'forbidden', 'rate_limited', 'service_unavailable')
  async listAllLinks(@Query() query: ListAdminLinksQueryDto): Promise<AdminLinkListDto> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const offset = query.offset ?? 0;
    const { data, total } = await this.admin.listLinks(limit, offset, query.q, query.account);
    return {
      data: data.map((link) => ({
        ...link,
        destinations: link.destinations.map(({ field, url }) => ({ field, url })),
      })),
      total,
      limit,
      offset,
    };
  }

  /**
   * Disable a link
   * @remarks Any account's link (or an anonymous one): its redirect answers 410 with a page
   * saying it was disabled, on every instance, from the moment this answers. Its owner still
   * sees it (with `disabled_at`) but cannot enable it. The link's open reports are resolved.
   */
  @Post('links/:code/disable')
  @HttpCode(HttpStatus.OK)
  @CODE_PARAM
  @ApiOkResponse({ type: LinkDto, description: 'The link, disabled.' })
  @ApiProblemResponses(
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
  async disableLink(
    @CurrentCaller() caller: Caller,
    @Param('code') code: string,
    @Body() body: DisableLinkDto,
  ): Promise<LinkDto> {
    return this.admin.disableLink(await this.admin.actor(caller.accountId, 'api'), code, body.reason);
  }

  /**
   * Enable a link
   * @remarks Makes a disabled link live again, whatever disabled it, unless something still holds
   * it: one of its targets on a blocked host, or its disabled account (409 `admin_conflict`:
   * unblock the host or enable the account). A live link is answered as it is.
   */
  @Post('links/:code/enable')
  @HttpCode(HttpStatus.OK)
  @CODE_PARAM
  @ApiOkResponse({ type: LinkDto, description: 'The link, live again.' })
  @ApiProblemResponses(
    'unauthorized',
    'forbidden',
    'not_found',
    'admin_conflict',
    'rate_limited',
    'service_unavailable',
  )
  async enableLink(@CurrentCaller() caller: Caller, @Param('code') code: string): Promise<LinkDto> {
    return this.admin.enableLink(await this.admin.actor(caller.accountId, 'api'), code);
  }

  /**
   * List reports
   * @remarks Reports sent through the public `/report` page, newest first: `open` ones by default.
   * Act on one by disabling its link (which resolves the link's open reports).
   */
  @Get('reports')
  @ApiOkResponse({ type: ReportListDto, description: 'One page of reports.' })
  @ApiProblemResponses('validation_failed', 'unauthorized', 'forbidden', 'rate_limited', 'service_unavailable')
  async listReports(@Query() query: ListReportsQueryDto): Promise<ReportListDto> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const offset = query.offset ?? 0;
    const { data, total } = await this.admin.listReports(query.status ?? 'open', limit, offset);
    return {
      data: data.map(({ id, short_url, code, reason, details, created_at, status }) => ({
        id,
        short_url,
        code,
        reason,
        details,
        created_at,
        status,
      })),
      total,
      limit,
      offset,
    };
  }
}
