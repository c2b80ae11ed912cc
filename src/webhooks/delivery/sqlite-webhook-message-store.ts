import { toSqliteDateTime } from '../../database/sqlite-background-writer.js';
import type { SqliteConnections } from '../../database/sqlite-connections.js';
import type { WriterStatement } from '../../database/sqlite-writer-protocol.js';
import { MESSAGE_COLUMNS } from '../outbox/outbox-messages.js';
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
 * The last message links stored and nobody moved yet (SQLite's link store appends them to
 * `webhook_new_messages`, see ADR 0007): null when there is none. Read on the read-only handle, so
 * that a worker with nothing new writes nothing.
 */
const LAST_NEW = `SELECT max(seq) AS last FROM webhook_new_messages`;

/**
 * Moves the new messages up to a `seq` into `webhook_messages`, as the outbox statements of the
 * other writes store theirs: pending and due since they were made, or failed at once when their
 * endpoint was disabled meanwhile (as FAIL_IF_DISABLED fails the pending messages of an endpoint
 * it disables). An endpoint deleted meanwhile took its new messages with it (ON DELETE CASCADE).
 * Run with DELETE_NEW in one transaction, so each message is moved exactly once whoever moves it.
 */
const MOVE_NEW = `INSERT INTO webhook_messages (${MESSAGE_COLUMNS})
  SELECT n.id, n.endpoint_id, n.message_id, n.event, n.payload,
    CASE WHEN e.disabled_at IS NULL THEN 'pending' ELSE 'failed' END, 0,
    CASE WHEN e.disabled_at IS NULL THEN n.created_at END, n.created_at
  FROM webhook_new_messages n JOIN webhook_endpoints e ON e.id = n.endpoint_id
  WHERE n.seq <= ? ORDER BY n.seq`;
const DELETE_NEW = `DELETE FROM webhook_new_messages WHERE seq <= ?`;

const DUE = `m.status = 'pending' AND m.next_attempt_at <= ? AND (m.claimed_until IS NULL OR m.claimed_until < ?)`;

/** Whether anything is due: read on the read-only handle, so that an idle worker writes nothing. */
const ANY_DUE = `SELECT 1 AS due FROM webhook_messages m
  JOIN webhook_endpoints e ON e.id = m.endpoint_id AND e.disabled_at IS NULL
  WHERE ${DUE} LIMIT 1`;

/**
 * The window of due messages is taken first (LIMIT in its own subquery) and ranked per endpoint
 * after: ranked in the same SELECT as the LIMIT, every due message was ranked, so that each claim
 * cost in proportion to the backlog (0.85 ms with 1,000 messages pending, for 8 of them).
 */
const CLAIM = `UPDATE webhook_messages SET claimed_until = ?
  WHERE id IN (
    SELECT id FROM (
      SELECT id, next_attempt_at,
        row_number() OVER (PARTITION BY endpoint_id ORDER BY next_attempt_at, id) AS n
      FROM (
        SELECT m.id, m.endpoint_id, m.next_attempt_at FROM webhook_messages m
        JOIN webhook_endpoints e ON e.id = m.endpoint_id AND e.disabled_at IS NULL
        WHERE ${DUE} AND m.endpoint_id NOT IN (SELECT value FROM json_each(?))
        ORDER BY m.next_attempt_at LIMIT ${CLAIM_WINDOW}
      )
    ) WHERE n <= ? ORDER BY next_attempt_at LIMIT ?
  )
  RETURNING id, message_id AS messageId, endpoint_id AS endpointId, payload, attempts,
    (SELECT e.account_id FROM webhook_endpoints e WHERE e.id = webhook_messages.endpoint_id) AS accountId,
    (SELECT e.url FROM webhook_endpoints e WHERE e.id = webhook_messages.endpoint_id) AS url,
    (SELECT e.secret FROM webhook_endpoints e WHERE e.id = webhook_messages.endpoint_id) AS secret`;

/**
 * Every attempt of a batch: [id, status, at, response status, next attempt] per element of a
 * JSON array. `+m.status` keeps the status out of the plan: without statistics SQLite's planner
 * read every pending message through the status index and the array for each of them.
 */
const RECORD_MESSAGES = `UPDATE webhook_messages AS m SET status = a.value ->> 1, attempts = m.attempts + 1,
    last_attempt_at = a.value ->> 2, response_status = a.value ->> 3, next_attempt_at = a.value ->> 4,
    claimed_until = NULL
  FROM json_each(?) AS a
  WHERE m.id = a.value ->> 0 AND +m.status = 'pending'`;

/**
 * One endpoint's outcome (see `endpointOutcomes`): delivered since it last failed, or failing
 * since the first failure after its last delivery, and disabled once failing since the cut-off.
 */
const RECORD_ENDPOINT = `UPDATE webhook_endpoints SET
    last_delivered_at = COALESCE(@delivered, last_delivered_at),
    last_failed_at = COALESCE(@failed, last_failed_at),
    failing_since = CASE WHEN @delivered IS NOT NULL THEN @failingFrom ELSE COALESCE(failing_since, @failingFrom) END,
    disabled_at = CASE WHEN disabled_at IS NULL AND @delivered IS NULL AND COALESCE(failing_since, @failingFrom) <= @cutoff
      THEN @failed ELSE disabled_at END
  WHERE id = @endpointId`;

const FAIL_IF_DISABLED = `UPDATE webhook_messages SET status = 'failed', next_attempt_at = NULL, claimed_until = NULL
  WHERE endpoint_id = ? AND status = 'pending'
    AND EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ? AND disabled_at IS NOT NULL)`;

/**
 * Delivered and failed messages created before a time, endpoint by endpoint through the
 * deliveries list's (endpoint_id, created_at) index: the outbox has no index on `created_at`
 * alone, which every message's INSERT would pay for. CROSS JOIN keeps the endpoints outside.
 */
const PRUNABLE = `SELECT m.id FROM webhook_endpoints e CROSS JOIN webhook_messages m ON m.endpoint_id = e.id
  WHERE m.created_at < ? AND m.status <> 'pending'`;

const time = (date: Date | null) => (date ? toSqliteDateTime(date) : null);

/** A statement of a record, and what its count of changed rows says about its endpoint. */
interface RecordStatement extends WriterStatement {
  /** `none updated`: the endpoint is gone; `some failed`: it is disabled (its pending messages were failed). */
  tells?: { endpointId: string; when: 'none updated' | 'some failed' };
}

/**
 * The statements that record a batch of attempts: one for the messages, then per endpoint one
 * for its state and, when any of its attempts failed, one that fails its pending messages if it
 * is now disabled.
 */
function recordStatements(attempts: AttemptRecord[]): RecordStatement[] {
  const rows = attempts.map((attempt) => [
    attempt.id,
    attempt.delivered ? 'delivered' : attempt.nextAttemptAt ? 'pending' : 'failed',
    toSqliteDateTime(attempt.at),
    attempt.responseStatus,
    time(attempt.nextAttemptAt),
  ]);
  const statements: RecordStatement[] = [{ sql: RECORD_MESSAGES, params: [JSON.stringify(rows)] }];
  for (const outcome of endpointOutcomes(attempts)) {
    const { endpointId } = outcome;
    statements.push({
      sql: RECORD_ENDPOINT,
      params: [
        {
          delivered: time(outcome.lastDeliveredAt),
          failed: time(outcome.lastFailedAt),
          failingFrom: time(outcome.failingFrom),
          cutoff: time(outcome.disableIfFailingSince),
          endpointId,
        },
      ],
      tells: { endpointId, when: 'none updated' },
    });
    if (outcome.lastFailedAt) {
      statements.push({
        sql: FAIL_IF_DISABLED,
        params: [endpointId, endpointId],
        tells: { endpointId, when: 'some failed' },
      });
    }
  }
  return statements;
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
    await this.moveNewMessages();
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

  /**
   * Moves what links stored since the last claim into `webhook_messages` (one transaction on the
   * writer for all of them), so that the claim sees them with every other message, oldest due
   * first.
   */
  private async moveNewMessages(): Promise<void> {
    const last = this.sqlite.reader.get<{ last: number | null }>(LAST_NEW)?.last;
    if (last === null || last === undefined) return;
    await this.sqlite.writer.runAll([
      { sql: MOVE_NEW, params: [last] },
      { sql: DELETE_NEW, params: [last] },
    ]);
  }

  /**
   * All of them in one transaction on the writer. An endpoint whose row the batch did not update
   * is gone; one whose pending messages were failed is disabled.
   */
  async record(attempts: AttemptRecord[]): Promise<Set<string>> {
    const gone = new Set<string>();
    if (attempts.length === 0) return gone;
    const statements = recordStatements(attempts);
    const changes = await this.sqlite.writer.runAll(statements.map(({ sql, params }) => ({ sql, params })));
    statements.forEach(({ tells }, i) => {
      if (!tells) return;
      if (tells.when === 'none updated' ? changes[i] === 0 : changes[i] > 0) gone.add(tells.endpointId);
    });
    return gone;
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
        `DELETE FROM webhook_messages WHERE id IN (${PRUNABLE} LIMIT ${PRUNE_SLICE})`,
        [toSqliteDateTime(before)],
      );
      deleted += changes;
      if (changes < PRUNE_SLICE) return deleted;
    }
  }
}
