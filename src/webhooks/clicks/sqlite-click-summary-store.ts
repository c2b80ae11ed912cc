import { toSqliteDateTime } from '../../database/sqlite-background-writer.js';
import type { SqliteConnections } from '../../database/sqlite-connections.js';
import { MESSAGE_COLUMNS, SQLITE_NEW_MESSAGE_ID, SQLITE_NEW_UUID } from '../outbox/outbox-messages.js';
import { eventToken } from '../webhook-events.js';
import { ClickSummaryStore, type ClickTallyIncrement, type DueClickTally } from './click-summary-store.js';

const EMIT_BATCH = 500;
// The statements below join from their JSON list with CROSS JOIN, which SQLite takes as the join
// order: each code is one primary-key lookup (see the link store's INSERT_MESSAGES).
const CLICKED = eventToken('link.clicked');

const ADD = `INSERT INTO webhook_click_tallies (code, clicks, bots, since, due_at)
  SELECT json_extract(t.value, '$[0]'), json_extract(t.value, '$[1]'), json_extract(t.value, '$[2]'), ?, ?
  FROM json_each(?) AS t
  CROSS JOIN links l ON l.code = json_extract(t.value, '$[0]')
  WHERE EXISTS (SELECT 1 FROM webhook_endpoints e
    WHERE e.account_id = l.account_id AND e.disabled_at IS NULL AND instr(e.events, ?) > 0)
  ON CONFLICT (code) DO UPDATE SET clicks = clicks + excluded.clicks, bots = bots + excluded.bots`;

const DUE = `SELECT code, clicks, bots, since FROM webhook_click_tallies WHERE due_at <= ?
  ORDER BY due_at LIMIT ${EMIT_BATCH}`;

const INSERT_MESSAGES = `INSERT INTO webhook_messages (${MESSAGE_COLUMNS})
  SELECT ${SQLITE_NEW_UUID}, e.id, ${SQLITE_NEW_MESSAGE_ID}, 'link.clicked', json_extract(b.value, '$[1]'),
    'pending', 0, ?, ?
  FROM json_each(?) AS b
  CROSS JOIN links l ON l.code = json_extract(b.value, '$[0]')
  CROSS JOIN webhook_endpoints e ON e.account_id = l.account_id AND e.disabled_at IS NULL AND instr(e.events, ?) > 0`;

const RESTART = `UPDATE webhook_click_tallies AS t SET clicks = t.clicks - d.clicks, bots = t.bots - d.bots,
    since = ?, due_at = ?
  FROM (SELECT json_extract(value, '$[0]') AS code, json_extract(value, '$[1]') AS clicks,
      json_extract(value, '$[2]') AS bots FROM json_each(?)) AS d
  WHERE t.code = d.code`;

const DELETE_EMPTY = `DELETE FROM webhook_click_tallies
  WHERE clicks = 0 AND code IN (SELECT json_extract(value, '$[0]') FROM json_each(?))`;

/**
 * SQLite (one instance): the due tallies are read on the read-only handle and summarised in one
 * transaction on the background writer, which subtracts what was summarised, so clicks a flush
 * adds in between are kept for the next summary.
 */
export class SqliteClickSummaryStore extends ClickSummaryStore {
  constructor(private readonly sqlite: SqliteConnections) {
    super();
  }

  async add(increments: ClickTallyIncrement[], since: Date, dueAt: Date): Promise<void> {
    if (increments.length === 0) return;
    const rows = JSON.stringify(increments.map((increment) => [increment.code, increment.clicks, increment.bots]));
    await this.sqlite.writer.run(ADD, [toSqliteDateTime(since), toSqliteDateTime(dueAt), rows, CLICKED]);
  }

  async emit(now: Date, nextDueAt: Date, body: (tally: DueClickTally) => string): Promise<number> {
    const at = toSqliteDateTime(now);
    const rows = this.sqlite.reader.all<{ code: string; clicks: number; bots: number; since: string }>(DUE, at);
    if (rows.length === 0) return 0;
    const due = rows.map((row) => ({ ...row, since: new Date(row.since) }));
    const bodies = due.filter((tally) => tally.clicks > 0).map((tally) => [tally.code, body(tally)]);
    const summarised = JSON.stringify(due.map((tally) => [tally.code, tally.clicks, tally.bots]));
    // A tally idle for a whole interval goes; one just summarised stays, so that the next
    // summary starts where this one ended.
    const idle = JSON.stringify(due.filter((tally) => tally.clicks === 0).map((tally) => [tally.code]));
    await this.sqlite.writer.runWith(
      INSERT_MESSAGES,
      [at, at, JSON.stringify(bodies), CLICKED],
      [
        { sql: RESTART, params: [at, toSqliteDateTime(nextDueAt), summarised] },
        { sql: DELETE_EMPTY, params: [idle] },
      ],
    );
    return rows.length;
  }
}
