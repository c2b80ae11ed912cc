import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Put, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, OptionalScopes, RequireScopes, type Caller } from '../auth/auth.decorators.js';
import { PaginationQueryDto } from '../common/pagination/pagination-query.dto.js';
import { CreateLinkDto } from './dto/create-link.dto.js';
import { LinkDto, LinkListDto } from './dto/link.dto.js';
import { UpdateLinkDto } from './dto/update-link.dto.js';
import { LinksService } from './links.service.js';

@Controller('api/links')
export class LinksController {
  constructor(private readonly links: LinksService) {}

  /**
   * Creates a short link. With a token (scope `links:write`) it belongs to the token's account
   * and may use a custom code; without one it is anonymous.
   */
  @Post()
  @OptionalScopes('links:write')
  async createLink(
    @CurrentCaller() caller: Caller | undefined,
    @Body() body: CreateLinkDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<LinkDto> {
    const link = await this.links.create(caller, body);
    void reply.header('Location', `/api/links/${link.code}`);
    return link;
  }

  /** Lists the caller's links, newest first. */
  @Get()
  @RequireScopes('links:read')
  listLinks(@CurrentCaller() caller: Caller, @Query() query: PaginationQueryDto): Promise<LinkListDto> {
    return this.links.list(caller, query);
  }

  /** One of the caller's links. */
  @Get(':code')
  @RequireScopes('links:read')
  getLink(@CurrentCaller() caller: Caller, @Param('code') code: string): Promise<LinkDto> {
    return this.links.get(caller, code);
  }

  /** Points one of the caller's links at a new target; redirects follow at once. */
  @Put(':code')
  @RequireScopes('links:write')
  updateLink(@CurrentCaller() caller: Caller, @Param('code') code: string, @Body() body: UpdateLinkDto): Promise<LinkDto> {
    return this.links.updateUrl(caller, code, body.url);
  }

  /** Deletes one of the caller's links for good; its code becomes free again. */
  @Delete(':code')
  @RequireScopes('links:write')
  @HttpCode(HttpStatus.NO_CONTENT)
  deleteLink(@CurrentCaller() caller: Caller, @Param('code') code: string): Promise<void> {
    return this.links.remove(caller, code);
  }
}
