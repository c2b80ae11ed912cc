import type { WebhookEvent } from '../webhook-events.js';

/**
 * Webhook messages a write of links stores in its own transaction (the transactional outbox):
 * for each link written, its message body, sent to every endpoint of `accountId` that is enabled
 * and subscribed to `event` at that moment (the endpoints are read in the same transaction).
 */
export interface OutboxMessages {
  accountId: string;
  event: WebhookEvent;
  /** Each link's message body, by code; links the write did not make get no message. */
  bodies: Map<string, string>;
}

/**
 * How a caller asks a repository for messages about the records it writes: the event, and the
 * body of one record's message (the link resource, or `{code}`).
 */
export interface OutboxEvent<Record> {
  event: WebhookEvent;
  body(record: Record): string;
}

/** The columns of a new message row, in the order the outbox statements write them. */
export const MESSAGE_COLUMNS =
  '"id", "endpoint_id", "message_id", "event", "payload", "status", "attempts", "next_attempt_at", "created_at"';

/** SQLite: a random UUID (version 4) for a message row's id, evaluated per row. */
export const SQLITE_NEW_UUID = `lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2)
  || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`;

/** SQLite: a new `webhook-id`, as newMessageId() makes them. */
export const SQLITE_NEW_MESSAGE_ID = `'msg_' || lower(hex(randomblob(16)))`;

/** PostgreSQL: the same two (gen_random_uuid is built in from PostgreSQL 13). */
export const POSTGRES_NEW_UUID = 'gen_random_uuid()::text';
export const POSTGRES_NEW_MESSAGE_ID = `'msg_' || replace(gen_random_uuid()::text, '-', '')`;
