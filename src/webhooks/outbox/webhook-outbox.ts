import { Injectable } from '@nestjs/common';
import type { Prisma } from '../../generated/sqlite/client.js';
import { eventPattern, type MessageType, type WebhookEvent } from '../webhook-events.js';
import { newMessageId, newMessageRowId } from '../webhook-secret.js';

/** Prisma's client inside an interactive transaction. */
export type TransactionClient = Prisma.TransactionClient;

/**
 * The outbox's writes made through Prisma, inside the caller's transaction: the messages of a
 * link update or delete (LinksRepository), and a test message. Link creation writes its messages
 * in its own statements instead (the LinkStores, see OutboxMessages).
 */
@Injectable()
export class WebhookOutbox {
  /**
   * Stores a message with each body for every endpoint of the account that is enabled and
   * subscribed to `event`, as part of the transaction `tx`. The bodies may be given as a function,
   * called only when some endpoint receives them.
   */
  async addInTransaction(
    tx: TransactionClient,
    accountId: string,
    event: WebhookEvent,
    bodies: string[] | (() => string[]),
    now = new Date(),
  ): Promise<number> {
    if (Array.isArray(bodies) && bodies.length === 0) return 0;
    const endpoints = await tx.webhookEndpoint.findMany({
      // `events` holds the names with a space either side: `contains` with them is exact.
      where: { accountId, disabledAt: null, events: { contains: eventPattern(event).slice(1, -1) } },
      select: { id: true },
    });
    if (endpoints.length === 0) return 0;
    const made = Array.isArray(bodies) ? bodies : bodies();
    if (made.length === 0) return 0;
    const { count } = await tx.webhookMessage.createMany({
      data: endpoints.flatMap((endpoint) => made.map((body) => newMessage(endpoint.id, event, body, now))),
    });
    return count;
  }
}

/** A new pending message row, due now. */
export function newMessage(endpointId: string, type: MessageType, payload: string, now: Date) {
  return {
    id: newMessageRowId(),
    endpointId,
    messageId: newMessageId(),
    event: type,
    payload,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    createdAt: now,
  };
}
