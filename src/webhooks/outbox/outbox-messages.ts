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

/**
 * The columns of a row of `webhook_new_messages` (SQLite): a message not yet moved into
 * `webhook_messages`, pending and due since it was made (`created_at`).
 */
export const NEW_MESSAGE_COLUMNS = '"id", "endpoint_id", "message_id", "event", "payload", "created_at"';

/*
 * Message ids are time-ordered: 48 bits of milliseconds since the epoch, then random bits (UUID
 * version 7 for the row's id; `msg_` + 12 + 20 hex characters for the `webhook-id`). New rows
 * then go at the end of the primary key's index rather than at random places in it: on SQLite a
 * message's INSERT cost 44 µs with random ids against 18 with these (both ids indexed then), a gap
 * that grows with the table. The `webhook-id` has no index (nothing looks it up); receivers see
 * its shape, which stays.
 */

/** SQLite: the current millisecond as 12 hex digits. */
const SQLITE_TIME_HEX = `printf('%012x', CAST(unixepoch('subsec') * 1000 AS INTEGER))`;

/** SQLite: a new row id (UUID version 7), evaluated per row. */
export const SQLITE_NEW_UUID = `lower(substr(${SQLITE_TIME_HEX}, 1, 8) || '-' || substr(${SQLITE_TIME_HEX}, 9, 4)
  || '-7' || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1)
  || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`;

/** SQLite: a new `webhook-id`, as newMessageId() makes them. */
export const SQLITE_NEW_MESSAGE_ID = `'msg_' || ${SQLITE_TIME_HEX} || lower(hex(randomblob(10)))`;

/** PostgreSQL: the current millisecond as 12 hex digits. */
const POSTGRES_TIME_HEX = `lpad(to_hex(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0')`;

/** PostgreSQL: the same two (gen_random_uuid is built in from PostgreSQL 13: its random digits). */
export const POSTGRES_NEW_UUID = `substr(${POSTGRES_TIME_HEX}, 1, 8) || '-' || substr(${POSTGRES_TIME_HEX}, 9, 4)
  || '-7' || substr(gen_random_uuid()::text, 16, 3) || '-' || substr(gen_random_uuid()::text, 20, 17)`;
export const POSTGRES_NEW_MESSAGE_ID = `'msg_' || ${POSTGRES_TIME_HEX} || left(md5(gen_random_uuid()::text), 20)`;
