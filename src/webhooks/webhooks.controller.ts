import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiNoContentResponse, ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, RequireScopes, type Caller } from '../auth/auth.decorators.js';
import { ApiTokenBodyProblems, ApiTokenProblems } from '../common/errors/api-problem-responses.decorator.js';
import { ApiCreatedWithLocation } from '../common/http/created-with-location.decorator.js';
import { CreateWebhookDto } from './dto/create-webhook.dto.js';
import { ListDeliveriesQueryDto, WebhookDeliveryDto, WebhookDeliveryListDto } from './dto/webhook-delivery.dto.js';
import { CreatedWebhookDto, WebhookDto, WebhookListDto } from './dto/webhook.dto.js';
import { WebhooksService } from './webhooks.service.js';

/** The `{id}` path parameter of every per-webhook operation. */
const ID_PARAM = ApiParam({
  name: 'id',
  description: 'The id of one of your webhooks',
  schema: { type: 'string', format: 'uuid', example: '0b6f1f5e-8a4c-4c52-9f43-2d1a6c1e9b7d' },
});

@ApiTags('webhooks')
@Controller('api/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  /**
   * Add a webhook
   * @remarks Messages about your links (`link.created`, `link.updated`, `link.deleted`,
   * `link.clicked`; all of them unless `events` names some) are posted to `url`, signed as
   * Standard Webhooks says with the `secret` of this answer, which is never shown again. At most
   * 10 webhooks per account. The answer's `Location` header is the webhook's URL.
   */
  @Post()
  @RequireScopes('webhooks:write')
  @ApiCreatedWithLocation(
    CreatedWebhookDto,
    'The webhook was added; `secret` is shown in this answer only.',
    'webhook',
    '/api/webhooks/{id}',
    '/api/webhooks/0b6f1f5e-8a4c-4c52-9f43-2d1a6c1e9b7d',
  )
  @ApiTokenBodyProblems('invalid_url', 'too_many_webhooks')
  async createWebhook(
    @CurrentCaller() caller: Caller,
    @Body() body: CreateWebhookDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CreatedWebhookDto> {
    const webhook = await this.webhooks.create(caller.accountId, body);
    void reply.header('Location', `/api/webhooks/${webhook.id}`);
    return webhook;
  }

  /**
   * List your webhooks
   * @remarks Oldest first, without their secrets.
   */
  @Get()
  @RequireScopes('webhooks:read')
  @ApiOkResponse({ type: WebhookListDto, description: 'Your webhooks.' })
  @ApiTokenProblems()
  async listWebhooks(@CurrentCaller() caller: Caller): Promise<WebhookListDto> {
    return { data: await this.webhooks.list(caller.accountId) };
  }

  /**
   * Get one of your webhooks
   * @remarks Another account's webhook answers 404.
   */
  @Get(':id')
  @RequireScopes('webhooks:read')
  @ID_PARAM
  @ApiOkResponse({ type: WebhookDto, description: 'The webhook.' })
  @ApiTokenProblems('not_found')
  getWebhook(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<WebhookDto> {
    return this.webhooks.get(caller.accountId, id);
  }

  /**
   * Delete one of your webhooks
   * @remarks No more messages are sent to it, pending ones included.
   */
  @Delete(':id')
  @RequireScopes('webhooks:write')
  @HttpCode(HttpStatus.NO_CONTENT)
  @ID_PARAM
  @ApiNoContentResponse({ description: 'The webhook is gone.' })
  @ApiTokenProblems('not_found')
  deleteWebhook(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<void> {
    return this.webhooks.remove(caller.accountId, id);
  }

  /**
   * Send a test message
   * @remarks Stores a `webhook.test` message to this webhook and answers at once; it is then
   * delivered (and retried) as any other message. Its progress shows in the deliveries.
   */
  @Post(':id/test')
  @RequireScopes('webhooks:write')
  @HttpCode(HttpStatus.ACCEPTED)
  @ID_PARAM
  @ApiAcceptedResponse({ type: WebhookDeliveryDto, description: 'The test message, on its way.' })
  @ApiTokenProblems('not_found', 'webhook_disabled')
  sendTest(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<WebhookDeliveryDto> {
    return this.webhooks.sendTest(caller.accountId, id);
  }

  /**
   * A webhook's recent deliveries
   * @remarks One entry per message to this webhook, newest first: its event, `webhook-id`,
   * status (`pending`, `delivered`, `failed`), attempts, the last answer's status and when the
   * next attempt is due. Up to `limit` (1 to 100, default 50); older ones are kept 30 days.
   */
  @Get(':id/deliveries')
  @RequireScopes('webhooks:read')
  @ID_PARAM
  @ApiOkResponse({ type: WebhookDeliveryListDto, description: 'The most recent deliveries, newest first.' })
  @ApiTokenProblems('validation_failed', 'not_found')
  async listDeliveries(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Query() query: ListDeliveriesQueryDto,
  ): Promise<WebhookDeliveryListDto> {
    return { data: await this.webhooks.deliveries(caller.accountId, id, query.limit) };
  }
}
