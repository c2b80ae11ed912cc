import { Injectable } from '@nestjs/common';
import { LruCache } from '../../common/lru-cache.js';
import { PrismaService } from '../../database/prisma.service.js';
import { messageBody, parseStoredEvents, type WebhookEvent } from '../webhook-events.js';
import type { OutboxEvent } from './outbox-messages.js';

/** Accounts whose subscriptions each instance keeps in memory. */
const CACHED_ACCOUNTS = 10_000;

/**
 * How long an instance trusts what it read: an endpoint added on another instance (PostgreSQL,
 * several instances) receives this one's link events at most this long after it was added. This
 * instance's own changes take effect at once (`forget`).
 */
export const SUBSCRIPTIONS_TTL_MS = 5_000;

/** The key of the events of every account's endpoints together. */
const ANY_ACCOUNT = '*';

interface CachedSubscriptions {
  events: ReadonlySet<WebhookEvent>;
  readAt: number;
}

/**
 * Which events an account's enabled endpoints subscribe to, cached per account: the check every
 * link write makes before it asks for outbox messages, so that an account without webhooks pays
 * one map lookup, not a query or a JSON body. Only a hint: the outbox statements read the
 * endpoints again in their own transaction, so a stale "subscribed" writes nothing wrong.
 */
@Injectable()
export class WebhookSubscriptions {
  private readonly cache = new LruCache<string, CachedSubscriptions>(CACHED_ACCOUNTS);

  constructor(private readonly prisma: PrismaService) {}

  /** The events the account's enabled endpoints receive. */
  async eventsOf(accountId: string): Promise<ReadonlySet<WebhookEvent>> {
    const cached = this.cache.get(accountId);
    const now = Date.now();
    if (cached && now - cached.readAt < SUBSCRIPTIONS_TTL_MS) return cached.events;
    const endpoints = await this.prisma.webhookEndpoint.findMany({
      where: { accountId, disabledAt: null },
      select: { events: true },
    });
    const events = new Set(endpoints.flatMap((endpoint) => parseStoredEvents(endpoint.events)));
    this.cache.set(accountId, { events, readAt: now });
    return events;
  }

  /**
   * The outbox messages a write of the account's links should store for `event`, or undefined
   * when no endpoint of the account receives it (anonymous links: never).
   */
  async outboxEvent<Record>(
    accountId: string | null | undefined,
    event: WebhookEvent,
    data: (record: Record) => object,
  ): Promise<OutboxEvent<Record> | undefined> {
    if (!accountId) return undefined;
    if (!(await this.eventsOf(accountId)).has(event)) return undefined;
    return { event, body: (record) => messageBody(event, data(record), new Date()) };
  }

  /** Drops what is known of the account: its endpoints changed. */
  forget(accountId: string): void {
    this.cache.delete(accountId);
    this.anywhere.delete(ANY_ACCOUNT);
  }

  private readonly anywhere = new Map<string, CachedSubscriptions>();

  /**
   * Whether any enabled endpoint of any account receives `event` (cached as an account's
   * events are): what the click flush asks before it does anything for `link.clicked`.
   */
  async anyReceives(event: WebhookEvent): Promise<boolean> {
    const cached = this.anywhere.get(ANY_ACCOUNT);
    const now = Date.now();
    if (cached && now - cached.readAt < SUBSCRIPTIONS_TTL_MS) return cached.events.has(event);
    const endpoints = await this.prisma.webhookEndpoint.findMany({
      where: { disabledAt: null },
      select: { events: true },
      distinct: ['events'],
    });
    const events = new Set(endpoints.flatMap((endpoint) => parseStoredEvents(endpoint.events)));
    this.anywhere.set(ANY_ACCOUNT, { events, readAt: now });
    return events.has(event);
  }
}
