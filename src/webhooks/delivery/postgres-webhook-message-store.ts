import type { PostgresPool } from '../../database/postgres-pools.js';
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

/**
 * PostgreSQL, on the main pool (short statements, like the API's). Several instances claim from
 * one table: `FOR UPDATE SKIP LOCKED` lets each take rows no other is taking at that moment, and
 * the lease (`claimed_until`) keeps them its own until the attempt is recorded. Times go as ISO
 * strings in UTC into the `timestamp(3)` columns, as the link store's do.
 */
export class PostgresWebhookMessageStore extends WebhookMessageStore {
  constructor(private readonly pool: PostgresPool) {
    super();
  }

  async claim(request: ClaimRequest): Promise<ClaimedMessage[]> {
    const { rows } = await this.pool.query<ClaimedMessage>({
      name: 'webhook-claim',
      text: `WITH candidates AS (
          SELECT m.id, m.endpoint_id, m.next_attempt_at FROM webhook_messages m
          JOIN webhook_endpoints e ON e.id = m.endpoint_id AND e.disabled_at IS NULL
          WHERE m.status = 'pending' AND m.next_attempt_at <= $1
            AND (m.claimed_until IS NULL OR m.claimed_until < $1)
            AND NOT (m.endpoint_id = ANY($2::text[]))
          ORDER BY m.next_attempt_at
          LIMIT ${CLAIM_WINDOW}
          FOR UPDATE OF m SKIP LOCKED
        ), chosen AS (
          SELECT id FROM (
            SELECT id, next_attempt_at,
              row_number() OVER (PARTITION BY endpoint_id ORDER BY next_attempt_at, id) AS n
            FROM candidates
          ) ranked
          WHERE n <= $3 ORDER BY next_attempt_at LIMIT $4
        )
        UPDATE webhook_messages m SET claimed_until = $5
        FROM chosen, webhook_endpoints e
        WHERE m.id = chosen.id AND e.id = m.endpoint_id
        RETURNING m.id, m.message_id AS "messageId", m.endpoint_id AS "endpointId", e.account_id AS "accountId",
          m.payload, m.attempts, e.url, e.secret`,
      values: [
        request.now.toISOString(),
        request.busyEndpoints,
        request.perEndpoint,
        request.limit,
        request.claimedUntil.toISOString(),
      ],
    });
    return rows;
  }

  /** One statement per attempt (each its own transaction), in order. */
  async record(attempts: AttemptRecord[]): Promise<void> {
    for (const attempt of attempts) await this.recordOne(attempt);
  }

  private async recordOne(attempt: AttemptRecord): Promise<void> {
    const at = attempt.at.toISOString();
    const status = attempt.delivered ? 'delivered' : attempt.nextAttemptAt ? 'pending' : 'failed';
    const { rows } = await this.pool.query<{ disabled: boolean }>({
      name: attempt.delivered ? 'webhook-record-delivered' : 'webhook-record-failed',
      text: `WITH message AS (
          UPDATE webhook_messages SET status = $3, attempts = attempts + 1, last_attempt_at = $4,
            response_status = $5, next_attempt_at = $6, claimed_until = NULL
          WHERE id = $1 AND status = 'pending'
        )
        UPDATE webhook_endpoints SET ${
          attempt.delivered
            ? 'last_delivered_at = $4, failing_since = NULL'
            : `last_failed_at = $4, failing_since = COALESCE(failing_since, $4),
               disabled_at = CASE WHEN disabled_at IS NULL AND COALESCE(failing_since, $4) <= $7 THEN $4
                 ELSE disabled_at END`
        }
        WHERE id = $2
        RETURNING disabled_at IS NOT NULL AS disabled`,
      values: [
        attempt.id,
        attempt.endpointId,
        status,
        at,
        attempt.responseStatus,
        attempt.nextAttemptAt?.toISOString() ?? null,
        ...(attempt.delivered ? [] : [attempt.disableIfFailingSince.toISOString()]),
      ],
    });
    if (rows[0]?.disabled) {
      await this.pool.query({
        name: 'webhook-fail-disabled',
        text: `UPDATE webhook_messages SET status = 'failed', next_attempt_at = NULL, claimed_until = NULL
          WHERE endpoint_id = $1 AND status = 'pending'`,
        values: [attempt.endpointId],
      });
    }
  }

  async release(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.pool.query({
      name: 'webhook-release',
      text: 'UPDATE webhook_messages SET claimed_until = NULL WHERE id = ANY($1::text[])',
      values: [ids],
    });
  }

  /** In slices of PRUNE_SLICE rows, so that no statement holds many row locks for long. */
  async prune(before: Date): Promise<number> {
    let deleted = 0;
    for (;;) {
      const { rowCount } = await this.pool.query({
        name: 'webhook-prune',
        text: `DELETE FROM webhook_messages WHERE id IN (
            SELECT id FROM webhook_messages WHERE created_at < $1 AND status <> 'pending' LIMIT ${PRUNE_SLICE}
          )`,
        values: [before.toISOString()],
      });
      deleted += rowCount ?? 0;
      if ((rowCount ?? 0) < PRUNE_SLICE) return deleted;
    }
  }
}
