import type { PostgresPool } from '../../database/postgres-pools.js';
import { MESSAGE_COLUMNS, POSTGRES_NEW_MESSAGE_ID, POSTGRES_NEW_UUID } from '../outbox/outbox-messages.js';
import { eventPattern } from '../webhook-events.js';
import { ClickSummaryStore, type ClickTallyIncrement, type DueClickTally } from './click-summary-store.js';

/** Tallies summarised per transaction at most. */
const EMIT_BATCH = 500;
const CLICKED = eventPattern('link.clicked');

/**
 * PostgreSQL. The flush's additions run on the hot pool, as the click flush itself does (codes
 * in order, so that instances adding to the same tallies never deadlock); the summaries on the
 * main pool, in a transaction that locks the due tallies with `FOR UPDATE SKIP LOCKED`, so each
 * is summarised by one instance.
 */
export class PostgresClickSummaryStore extends ClickSummaryStore {
  constructor(
    private readonly hot: PostgresPool,
    private readonly main: PostgresPool,
  ) {
    super();
  }

  async add(increments: ClickTallyIncrement[], since: Date, dueAt: Date): Promise<void> {
    if (increments.length === 0) return;
    const sorted = [...increments].sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
    await this.hot.query({
      name: 'webhook-click-tallies-add',
      text: `INSERT INTO webhook_click_tallies (code, clicks, bots, since, due_at)
        SELECT t.code, t.clicks, t.bots, $4, $5
        FROM unnest($1::text[], $2::int[], $3::int[]) WITH ORDINALITY AS t(code, clicks, bots, n)
        JOIN links l ON l.code = t.code
        WHERE EXISTS (SELECT 1 FROM webhook_endpoints e
          WHERE e.account_id = l.account_id AND e.disabled_at IS NULL AND e.events LIKE $6)
        ORDER BY t.n
        ON CONFLICT (code) DO UPDATE SET clicks = webhook_click_tallies.clicks + excluded.clicks,
          bots = webhook_click_tallies.bots + excluded.bots`,
      values: [
        sorted.map((increment) => increment.code),
        sorted.map((increment) => increment.clicks),
        sorted.map((increment) => increment.bots),
        since.toISOString(),
        dueAt.toISOString(),
        CLICKED,
      ],
    });
  }

  async emit(now: Date, nextDueAt: Date, body: (tally: DueClickTally) => string): Promise<number> {
    const client = await this.main.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ code: string; clicks: number; bots: number; since: number }>({
        text: `SELECT code, clicks, bots, (extract(epoch FROM since) * 1000)::float8 AS since
          FROM webhook_click_tallies WHERE due_at <= $1
          ORDER BY due_at LIMIT ${EMIT_BATCH} FOR UPDATE SKIP LOCKED`,
        values: [now.toISOString()],
      });
      if (rows.length > 0) {
        const due = rows.map((row) => ({ ...row, since: new Date(row.since) }));
        const summarised = due.filter((tally) => tally.clicks > 0);
        await client.query({
          text: `INSERT INTO webhook_messages (${MESSAGE_COLUMNS})
            SELECT ${POSTGRES_NEW_UUID}, e.id, ${POSTGRES_NEW_MESSAGE_ID}, 'link.clicked', b.body, 'pending', 0, $3, $3
            FROM unnest($1::text[], $2::text[]) AS b(code, body)
            JOIN links l ON l.code = b.code
            JOIN webhook_endpoints e ON e.account_id = l.account_id AND e.disabled_at IS NULL AND e.events LIKE $4`,
          values: [summarised.map((tally) => tally.code), summarised.map(body), now.toISOString(), CLICKED],
        });
        await client.query({
          text: `UPDATE webhook_click_tallies t SET clicks = t.clicks - d.clicks, bots = t.bots - d.bots,
              since = $4, due_at = $5
            FROM unnest($1::text[], $2::int[], $3::int[]) AS d(code, clicks, bots) WHERE t.code = d.code`,
          values: [
            due.map((tally) => tally.code),
            due.map((tally) => tally.clicks),
            due.map((tally) => tally.bots),
            now.toISOString(),
            nextDueAt.toISOString(),
          ],
        });
        // A tally idle for a whole interval goes; one just summarised stays, so that the next
        // summary starts where this one ended.
        await client.query({
          text: 'DELETE FROM webhook_click_tallies WHERE code = ANY($1::text[]) AND clicks = 0',
          values: [due.filter((tally) => tally.clicks === 0).map((tally) => tally.code)],
        });
      }
      await client.query('COMMIT');
      return rows.length;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
