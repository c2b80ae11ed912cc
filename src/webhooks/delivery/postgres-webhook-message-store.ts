import type { PostgresPool } from '../../database/postgres-pools.js';
import {
  endpointOutcomes,
  MAX_CLAIM,
  WebhookMessageStore,
  type AttemptRecord,
  type ClaimedMessage,
  type ClaimRequest,
} from './webhook-message-store.js';

/**
 * Due messages looked at per claim, before the per-endpoint bound picks among them: twice what a
 * claim takes at most (MAX_CLAIM). Each is read, so a wider window costs every claim more (500:
 * 1 ms of SQLite's writer a claim with a backlog, 256: 0.6 ms).
 */
const CLAIM_WINDOW = 2 * MAX_CLAIM;
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

  /**
   * Whether anything is due: one read on the (status, next_attempt_at) index, which an idle
   * worker polling every 100 ms (`shortlink webhooks worker`) runs instead of the claim.
   */
  private async anyDue(now: Date): Promise<boolean> {
    const { rowCount } = await this.pool.query({
      name: 'webhook-any-due',
      text: `SELECT 1 FROM webhook_messages m
        JOIN webhook_endpoints e ON e.id = m.endpoint_id AND e.disabled_at IS NULL
        WHERE m.status = 'pending' AND m.next_attempt_at <= $1
          AND (m.claimed_until IS NULL OR m.claimed_until < $1)
        LIMIT 1`,
      values: [now.toISOString()],
    });
    return (rowCount ?? 0) > 0;
  }

  /**
   * The window of due messages is read without locks, ranked per endpoint, and only the chosen
   * ones are locked (`SKIP LOCKED`: those another instance is claiming are left to it; the lease
   * is checked again on the locked row). Locking the whole window made every claim write a lock
   * on up to CLAIM_WINDOW rows.
   */
  async claim(request: ClaimRequest): Promise<ClaimedMessage[]> {
    if (!(await this.anyDue(request.now))) return [];
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
        ), chosen AS (
          SELECT id FROM (
            SELECT id, next_attempt_at,
              row_number() OVER (PARTITION BY endpoint_id ORDER BY next_attempt_at, id) AS n
            FROM candidates
          ) ranked
          WHERE n <= $3 ORDER BY next_attempt_at LIMIT $4
        ), locked AS (
          SELECT m.id FROM webhook_messages m JOIN chosen ON chosen.id = m.id
          WHERE m.status = 'pending' AND (m.claimed_until IS NULL OR m.claimed_until < $1)
          FOR UPDATE OF m SKIP LOCKED
        )
        UPDATE webhook_messages m SET claimed_until = $5
        FROM locked, webhook_endpoints e
        WHERE m.id = locked.id AND e.id = m.endpoint_id
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

  /**
   * One statement for the whole batch (one transaction, one commit): the messages from arrays,
   * each endpoint once from its outcome (`endpointOutcomes`). An endpoint the statement did not
   * find is gone; one it disabled has its pending messages failed by a second statement.
   */
  async record(attempts: AttemptRecord[]): Promise<Set<string>> {
    const gone = new Set<string>();
    if (attempts.length === 0) return gone;
    const outcomes = endpointOutcomes(attempts);
    const iso = (date: Date | null) => date?.toISOString() ?? null;
    const { rows } = await this.pool.query<{ id: string; disabled: boolean }>({
      name: 'webhook-record',
      text: `WITH message AS (
          UPDATE webhook_messages m SET status = a.status, attempts = m.attempts + 1, last_attempt_at = a.at,
            response_status = a.response_status, next_attempt_at = a.next_attempt_at, claimed_until = NULL
          FROM unnest($1::text[], $2::text[], $3::timestamp(3)[], $4::int[], $5::timestamp(3)[])
            AS a(id, status, at, response_status, next_attempt_at)
          WHERE m.id = a.id AND m.status = 'pending'
        )
        UPDATE webhook_endpoints e SET
          last_delivered_at = COALESCE(o.delivered_at, e.last_delivered_at),
          last_failed_at = COALESCE(o.failed_at, e.last_failed_at),
          failing_since = CASE WHEN o.delivered_at IS NOT NULL THEN o.failing_from
            ELSE COALESCE(e.failing_since, o.failing_from) END,
          disabled_at = CASE WHEN e.disabled_at IS NULL AND o.delivered_at IS NULL
              AND COALESCE(e.failing_since, o.failing_from) <= o.cutoff THEN o.failed_at
            ELSE e.disabled_at END
        FROM unnest($6::text[], $7::timestamp(3)[], $8::timestamp(3)[], $9::timestamp(3)[], $10::timestamp(3)[])
          AS o(id, delivered_at, failed_at, failing_from, cutoff)
        WHERE e.id = o.id
        RETURNING e.id, e.disabled_at IS NOT NULL AS disabled`,
      values: [
        attempts.map((attempt) => attempt.id),
        attempts.map((attempt) => (attempt.delivered ? 'delivered' : attempt.nextAttemptAt ? 'pending' : 'failed')),
        attempts.map((attempt) => attempt.at.toISOString()),
        attempts.map((attempt) => attempt.responseStatus),
        attempts.map((attempt) => iso(attempt.nextAttemptAt)),
        outcomes.map((outcome) => outcome.endpointId),
        outcomes.map((outcome) => iso(outcome.lastDeliveredAt)),
        outcomes.map((outcome) => iso(outcome.lastFailedAt)),
        outcomes.map((outcome) => iso(outcome.failingFrom)),
        outcomes.map((outcome) => iso(outcome.disableIfFailingSince)),
      ],
    });
    const found = new Set(rows.map((row) => row.id));
    for (const outcome of outcomes) if (!found.has(outcome.endpointId)) gone.add(outcome.endpointId);
    const disabled = rows.filter((row) => row.disabled).map((row) => row.id);
    if (disabled.length > 0) {
      for (const id of disabled) gone.add(id);
      await this.pool.query({
        name: 'webhook-fail-disabled',
        text: `UPDATE webhook_messages SET status = 'failed', next_attempt_at = NULL, claimed_until = NULL
          WHERE endpoint_id = ANY($1::text[]) AND status = 'pending'`,
        values: [disabled],
      });
    }
    return gone;
  }

  async release(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.pool.query({
      name: 'webhook-release',
      text: 'UPDATE webhook_messages SET claimed_until = NULL WHERE id = ANY($1::text[])',
      values: [ids],
    });
  }

  /**
   * In slices of PRUNE_SLICE rows, so that no statement holds many row locks for long; endpoint by
   * endpoint through the deliveries list's (endpoint_id, created_at) index (LATERAL: a range of
   * it per endpoint, whatever the statistics say), as the outbox has no index on `created_at`
   * alone (every message's INSERT would pay for it).
   */
  async prune(before: Date): Promise<number> {
    let deleted = 0;
    for (;;) {
      const { rowCount } = await this.pool.query({
        name: 'webhook-prune',
        text: `DELETE FROM webhook_messages WHERE id IN (
            SELECT m.id FROM webhook_endpoints e CROSS JOIN LATERAL (
              SELECT id FROM webhook_messages
              WHERE endpoint_id = e.id AND created_at < $1 AND status <> 'pending' LIMIT ${PRUNE_SLICE}
            ) m LIMIT ${PRUNE_SLICE}
          )`,
        values: [before.toISOString()],
      });
      deleted += rowCount ?? 0;
      if ((rowCount ?? 0) < PRUNE_SLICE) return deleted;
    }
  }
}
