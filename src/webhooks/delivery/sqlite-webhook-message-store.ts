import { toSqliteDateTime } from '../../database/sqlite-background-writer.js';
import type { SqliteConnections } from '../../database/sqlite-connections.js';
import type { WriterStatement } from '../../database/sqlite-writer-protocol.js';
import {
  WebhookMessageStore,
  type AttemptRecord,
  type ClaimedMessage,
  type ClaimRequest,
} from './webhook-message-store.js';

/** Due messages looked at per claim, before the per-endpoint bound picks among them. */
const CLAIM_WINDOW = 500;
/** Old messages deleted per statement. */
const PRUNE_SLICE = 5000;

const DUE = `m.status = 'pending' AND m.next_attempt_at <= ? AND (m.claimed_until IS NULL OR m.claimed_until < ?)`;

/** Whether anything is due: read on the read-only handle, so that an idle worker writes nothing. */
const ANY_DUE = `SELECT 1 AS due FROM webhook_messages m
  JOIN webhook_endpoints e ON e.id = m.endpoint_id AND e.disabled_at IS NULL
  WHERE ${DUE} LIMIT 1`;

const CLAIM = `UPDATE webhook_messages SET claimed_until = ?
  WHERE id IN (
    SELECT id FROM (
      SELECT m.id, m.next_attempt_at,
        row_number() OVER (PARTITION BY m.endpoint_id ORDER BY m.next_attempt_at, m.id) AS n
      FROM webhook_messages m
      JOIN webhook_endpoints e ON e.id = m.endpoint_id AND e.disabled_at IS NULL
      WHERE ${DUE} AND m.endpoint_id NOT IN (SELECT value FROM json_each(?))
      ORDER BY m.next_attempt_at LIMIT ${CLAIM_WINDOW}
    ) WHERE n <= ? ORDER BY next_attempt_at LIMIT ?
  )
  RETURNING id, message_id AS messageId, endpoint_id AS endpointId, payload, attempts,
    (SELECT e.account_id FROM webhook_endpoints e WHERE e.id = webhook_messages.endpoint_id) AS accountId,
    (SELECT e.url FROM webhook_endpoints e WHERE e.id = webhook_messages.endpoint_id) AS url,
    (SELECT e.secret FROM webhook_endpoints e WHERE e.id = webhook_messages.endpoint_id) AS secret`;

const RECORD_MESSAGE = `UPDATE webhook_messages SET status = ?, attempts = attempts + 1, last_attempt_at = ?,
    response_status = ?, next_attempt_at = ?, claimed_until = NULL
  WHERE id = ? AND status = 'pending'`;

const RECORD_DELIVERED = 'UPDATE webhook_endpoints SET last_delivered_at = ?, failing_since = NULL WHERE id = ?';

const RECORD_FAILED = `UPDATE webhook_endpoints SET last_failed_at = ?, failing_since = COALESCE(failing_since, ?),
    disabled_at = CASE WHEN disabled_at IS NULL AND COALESCE(failing_since, ?) <= ? THEN ? ELSE disabled_at END
  WHERE id = ?`;

const FAIL_IF_DISABLED = `UPDATE webhook_messages SET status = 'failed', next_attempt_at = NULL, claimed_until = NULL
  WHERE endpoint_id = ? AND status = 'pending'
    AND EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ? AND disabled_at IS NOT NULL)`;

/** The statements that record one attempt. */
function recordStatements(attempt: AttemptRecord): WriterStatement[] {
  const at = toSqliteDateTime(attempt.at);
  const status = attempt.delivered ? 'delivered' : attempt.nextAttemptAt ? 'pending' : 'failed';
  const next = attempt.nextAttemptAt ? toSqliteDateTime(attempt.nextAttemptAt) : null;
  const message = { sql: RECORD_MESSAGE, params: [status, at, attempt.responseStatus, next, attempt.id] };
  if (attempt.delivered) return [message, { sql: RECORD_DELIVERED, params: [at, attempt.endpointId] }];
  const cutoff = toSqliteDateTime(attempt.disableIfFailingSince);
  return [
    message,
    { sql: RECORD_FAILED, params: [at, at, at, cutoff, at, attempt.endpointId] },
    { sql: FAIL_IF_DISABLED, params: [attempt.endpointId, attempt.endpointId] },
  ];
}

/**
 * SQLite: one instance serves a database file, and its writes go through the background writer
 * (a claim is one `UPDATE … RETURNING`, the records of attempts that end together one transaction), off the event
 * loop; whether anything is due is read on the read-only handle first, so an idle worker writes
 * nothing. Times are the ISO text Prisma's adapter writes, which sorts as it reads.
 */
export class SqliteWebhookMessageStore extends WebhookMessageStore {
  constructor(private readonly sqlite: SqliteConnections) {
    super();
  }

  async claim(request: ClaimRequest): Promise<ClaimedMessage[]> {
    const now = toSqliteDateTime(request.now);
    if (!this.sqlite.reader.get(ANY_DUE, now, now)) return [];
    return this.sqlite.writer.query<ClaimedMessage>(CLAIM, [
      toSqliteDateTime(request.claimedUntil),
      now,
      now,
      JSON.stringify(request.busyEndpoints),
      request.perEndpoint,
      request.limit,
    ]);
  }

  /** All of them in one transaction on the writer. */
  async record(attempts: AttemptRecord[]): Promise<void> {
    const statements = attempts.flatMap((attempt) => recordStatements(attempt));
    if (statements.length === 0) return;
    const [first, ...then] = statements;
    await this.sqlite.writer.runWith(first.sql, first.params, then);
  }

  async release(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.sqlite.writer.run(
      'UPDATE webhook_messages SET claimed_until = NULL WHERE id IN (SELECT value FROM json_each(?))',
      [JSON.stringify(ids)],
    );
  }

  /** In slices of PRUNE_SLICE rows, so that the writer goes on with other requests in between. */
  async prune(before: Date): Promise<number> {
    let deleted = 0;
    for (;;) {
      const changes = await this.sqlite.writer.run(
        `DELETE FROM webhook_messages WHERE id IN (
          SELECT id FROM webhook_messages WHERE created_at < ? AND status <> 'pending' LIMIT ${PRUNE_SLICE})`,
        [toSqliteDateTime(before)],
      );
      deleted += changes;
      if (changes < PRUNE_SLICE) return deleted;
    }
  }
}
