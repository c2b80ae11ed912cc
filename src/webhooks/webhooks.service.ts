import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { checkDestination, normalizeWebhookUrl, resolveHost, type HostResolver } from './destination.js';
import type { CreatedWebhookDto, WebhookDto } from './dto/webhook.dto.js';
import { DEFAULT_DELIVERIES, type DeliveryStatus, type WebhookDeliveryDto } from './dto/webhook-delivery.dto.js';
import { OutboxSignal } from './outbox/outbox-signal.js';
import { WebhookSubscriptions } from './outbox/webhook-subscriptions.js';
import {
  messageBody,
  parseStoredEvents,
  storedEvents,
  TEST_EVENT,
  WEBHOOK_EVENTS,
  type WebhookEvent,
} from './webhook-events.js';
import { newSigningSecret } from './webhook-secret.js';
import { WebhooksRepository, type WebhookDeliveryRecord, type WebhookEndpointRecord } from './webhooks.repository.js';

/** Endpoints an account may have. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 10;

/** An endpoint id as generated (a UUID): anything else is unknown without a query. */
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What adding an endpoint takes: the API's body, or the dashboard's form. */
export interface CreateWebhookInput {
  url?: unknown;
  events?: readonly WebhookEvent[];
}

export function toWebhookDto(endpoint: WebhookEndpointRecord): WebhookDto {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: parseStoredEvents(endpoint.events),
    created_at: endpoint.createdAt.toISOString(),
    disabled_at: endpoint.disabledAt?.toISOString() ?? null,
    last_delivered_at: endpoint.lastDeliveredAt?.toISOString() ?? null,
    last_failed_at: endpoint.lastFailedAt?.toISOString() ?? null,
  };
}

function toDeliveryDto(delivery: WebhookDeliveryRecord): WebhookDeliveryDto {
  return {
    id: delivery.id,
    event: delivery.event,
    message_id: delivery.messageId,
    status: delivery.status as DeliveryStatus,
    attempts: delivery.attempts,
    response_status: delivery.responseStatus,
    last_attempt_at: delivery.lastAttemptAt?.toISOString() ?? null,
    next_attempt_at: delivery.nextAttemptAt?.toISOString() ?? null,
  };
}

/** Adding, listing, testing and deleting an account's webhooks (API and dashboard). */
@Injectable()
export class WebhooksService {
  /** How hosts are resolved for the check at creation; replaced in specs. */
  resolver: HostResolver = resolveHost;

  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly subscriptions: WebhookSubscriptions,
    private readonly outboxSignal: OutboxSignal,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Adds an endpoint: its URL checked (and, unless WEBHOOK_ALLOW_PRIVATE, its host resolved and
   * refused when any address is not public), a new signing secret, shown in this answer only.
   */
  async create(accountId: string, input: CreateWebhookInput): Promise<CreatedWebhookDto> {
    const url = normalizeWebhookUrl(input.url, this.config.shortBaseUrl);
    // Left out: every event; an empty choice (a form with no box ticked) is a mistake.
    if (input.events !== undefined && input.events.length === 0) {
      const message = 'events must name at least one event';
      throw ApiError.validationFailed('Choose at least one event', [{ field: 'events', message }]);
    }
    if (!this.config.webhooks.allowPrivate) await checkDestination(url, this.resolver);
    const events = input.events ? [...new Set(input.events)] : [...WEBHOOK_EVENTS];
    // In the catalogue's order, whatever order they came in.
    const ordered = WEBHOOK_EVENTS.filter((event) => events.includes(event));
    const secret = newSigningSecret();
    const created = await this.webhooks.createUnlessAtLimit(
      { accountId, url: url.href, events: storedEvents(ordered), secret },
      MAX_WEBHOOKS_PER_ACCOUNT,
    );
    if (!created) throw ApiError.tooManyWebhooks(MAX_WEBHOOKS_PER_ACCOUNT);
    this.subscriptions.forget(accountId);
    return { ...toWebhookDto(created), secret };
  }

  async list(accountId: string): Promise<WebhookDto[]> {
    return (await this.webhooks.listForAccount(accountId)).map(toWebhookDto);
  }

  async get(accountId: string, id: string): Promise<WebhookDto> {
    return toWebhookDto(await this.find(accountId, id));
  }

  async remove(accountId: string, id: string): Promise<void> {
    const deleted = ID.test(id) && (await this.webhooks.deleteForAccount(id, accountId));
    if (!deleted) throw ApiError.webhookNotFound();
    this.subscriptions.forget(accountId);
    this.outboxSignal.endpointRemoved(id);
  }

  /** Sends the endpoint a `webhook.test` message (stored, then delivered as any other); its delivery. */
  async sendTest(accountId: string, id: string): Promise<WebhookDeliveryDto> {
    const endpoint = await this.find(accountId, id);
    if (endpoint.disabledAt) throw ApiError.webhookDisabled();
    const now = new Date();
    const body = messageBody(TEST_EVENT, { webhook_id: endpoint.id, url: endpoint.url }, now);
    const delivery = await this.webhooks.addMessage(endpoint.id, TEST_EVENT, body, now);
    this.outboxSignal.notify();
    return toDeliveryDto(delivery);
  }

  async deliveries(accountId: string, id: string, limit = DEFAULT_DELIVERIES): Promise<WebhookDeliveryDto[]> {
    const endpoint = await this.find(accountId, id);
    return (await this.webhooks.deliveriesOf(endpoint.id, limit)).map(toDeliveryDto);
  }

  private async find(accountId: string, id: string): Promise<WebhookEndpointRecord> {
    const endpoint = ID.test(id) ? await this.webhooks.findForAccount(id, accountId) : null;
    if (!endpoint) throw ApiError.webhookNotFound();
    return endpoint;
  }
}
