import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service.js';
import { newMessage } from './outbox/webhook-outbox.js';

export interface WebhookEndpointRecord {
  id: string;
  accountId: string;
  url: string;
  /** As stored: space-separated, a space either side (see storedEvents). */
  events: string;
  createdAt: Date;
  disabledAt: Date | null;
  lastDeliveredAt: Date | null;
  lastFailedAt: Date | null;
}

export interface WebhookDeliveryRecord {
  id: string;
  event: string;
  messageId: string;
  status: string;
  attempts: number;
  responseStatus: number | null;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
}

const ENDPOINT_FIELDS = {
  id: true,
  accountId: true,
  url: true,
  events: true,
  createdAt: true,
  disabledAt: true,
  lastDeliveredAt: true,
  lastFailedAt: true,
} as const;

const DELIVERY_FIELDS = {
  id: true,
  event: true,
  messageId: true,
  status: true,
  attempts: true,
  responseStatus: true,
  lastAttemptAt: true,
  nextAttemptAt: true,
} as const;

/** Webhook endpoints and their deliveries, as the API and the dashboard manage them. */
@Injectable()
export class WebhooksRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Adds an endpoint unless the account has `max` already (null then). The account's row is
   * locked first, so concurrent additions are counted one after the other.
   */
  async createUnlessAtLimit(
    data: { accountId: string; url: string; events: string; secret: string },
    max: number,
  ): Promise<WebhookEndpointRecord | null> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`UPDATE accounts SET email = email WHERE id = ${data.accountId}`;
      if ((await tx.webhookEndpoint.count({ where: { accountId: data.accountId } })) >= max) return null;
      return tx.webhookEndpoint.create({ data, select: ENDPOINT_FIELDS });
    });
  }

  listForAccount(accountId: string): Promise<WebhookEndpointRecord[]> {
    return this.prisma.webhookEndpoint.findMany({
      where: { accountId },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: ENDPOINT_FIELDS,
    });
  }

  /** The account's endpoint with this id; null for unknown ids and other accounts' endpoints. */
  async findForAccount(id: string, accountId: string): Promise<WebhookEndpointRecord | null> {
    const endpoint = await this.prisma.webhookEndpoint.findUnique({ where: { id }, select: ENDPOINT_FIELDS });
    return endpoint?.accountId === accountId ? endpoint : null;
  }

  /** Deletes the account's endpoint and its messages; false when the account has no such endpoint. */
  async deleteForAccount(id: string, accountId: string): Promise<boolean> {
    const { count } = await this.prisma.webhookEndpoint.deleteMany({ where: { id, accountId } });
    return count > 0;
  }

  /** Stores a message to one endpoint, due now; its delivery as listed. */
  async addMessage(endpointId: string, type: string, payload: string, now: Date): Promise<WebhookDeliveryRecord> {
    return this.prisma.webhookMessage.create({
      data: newMessage(endpointId, type as never, payload, now),
      select: DELIVERY_FIELDS,
    });
  }

  /**
   * The endpoint's most recent `limit` messages, newest first: those in `webhook_messages` and,
   * on SQLite, those links stored since the last claim, which wait in `webhook_new_messages`
   * (ADR 0007; always empty on PostgreSQL) and are shown as the pending, unattempted messages they
   * are. Both read in one transaction, so a message moved meanwhile is listed once.
   */
  async deliveriesOf(endpointId: string, limit: number): Promise<WebhookDeliveryRecord[]> {
    const [stored, waiting] = await this.prisma.$transaction([
      this.prisma.webhookMessage.findMany({
        where: { endpointId },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: limit,
        select: { ...DELIVERY_FIELDS, createdAt: true },
      }),
      this.prisma.webhookNewMessage.findMany({
        where: { endpointId },
        orderBy: { seq: 'desc' },
        take: limit,
        select: { id: true, event: true, messageId: true, createdAt: true },
      }),
    ]);
    const newest = waiting
      .map((message): WebhookDeliveryRecord & { createdAt: Date } => ({
        ...message,
        status: 'pending',
        attempts: 0,
        responseStatus: null,
        lastAttemptAt: null,
        nextAttemptAt: message.createdAt,
      }))
      .concat(stored)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .slice(0, limit);
    return newest.map(({ createdAt: _createdAt, ...delivery }) => delivery);
  }
}
