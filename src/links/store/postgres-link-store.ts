import type { PostgresPool } from '../../database/postgres-pools.js';
import {
  MESSAGE_COLUMNS,
  POSTGRES_NEW_MESSAGE_ID,
  POSTGRES_NEW_UUID,
  type OutboxMessages,
} from '../../webhooks/outbox/outbox-messages.js';
import { eventPattern } from '../../webhooks/webhook-events.js';
import { LinkStore, type NewLink, type StoredLink, type StoredLinkPage } from './link-store.js';

/** A `links` row as the list queries select it (LINK_COLUMNS), times as epoch milliseconds. */
interface LinkRow {
  code: string;
  url: string;
  accountId: string | null;
  clicks: number;
  clicksThroughBatch: number;
  createdAt: number;
  updatedAt: number;
  expiresAt: number | null;
}

function toStoredLink(row: LinkRow): StoredLink {
  return {
    code: row.code,
    url: row.url,
    accountId: row.accountId,
    clicks: row.clicks,
    clicksThroughBatch: row.clicksThroughBatch,
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
    expiresAt: row.expiresAt === null ? null : new Date(row.expiresAt),
  };
}

/**
 * The columns of a LinkRow. The timestamps are `timestamp(3)` without a time zone, holding UTC
 * as Prisma writes them: their epoch is read as UTC whatever the process's time zone (the driver
 * would parse them in local time).
 */
const LINK_COLUMNS = `code, url, account_id AS "accountId", clicks, clicks_through_batch AS "clicksThroughBatch",
  (extract(epoch FROM created_at) * 1000)::float8 AS "createdAt",
  (extract(epoch FROM updated_at) * 1000)::float8 AS "updatedAt",
  (extract(epoch FROM expires_at) * 1000)::float8 AS "expiresAt"`;

/**
 * PostgreSQL: named prepared statements (parsed once per connection, no parameter conversion
 * across Prisma's driver adapter) on the main pool, which Prisma runs on too: a creation or a
 * list is one statement like the API's other queries. Times go as ISO strings in UTC, which
 * PostgreSQL reads without their zone into the `timestamp(3)` columns (a `Date` would be sent in
 * the process's local time).
 */
export class PostgresLinkStore extends LinkStore {
  constructor(private readonly pool: PostgresPool) {
    super();
  }

  async insert(link: NewLink, now: Date, messages?: OutboxMessages): Promise<boolean> {
    if (messages) return this.insertWithMessages(link, now, messages);
    const { rowCount } = await this.pool.query({
      name: 'insert-link',
      text: `INSERT INTO "links" ("code", "url", "account_id", "clicks", "created_at", "updated_at", "expires_at")
        VALUES ($1, $2, $3, 0, $4, $4, $5) ON CONFLICT ("code") DO NOTHING`,
      values: [link.code, link.url, link.accountId, now.toISOString(), link.expiresAt?.toISOString() ?? null],
    });
    return rowCount === 1;
  }

  /**
   * The link and its webhook messages in one statement (so one transaction): the messages are
   * written only when the link was, to every enabled endpoint of the account subscribed to the
   * event, read by the same statement.
   */
  private async insertWithMessages(link: NewLink, now: Date, messages: OutboxMessages): Promise<boolean> {
    const { rows } = await this.pool.query<{ inserted: number }>({
      name: 'insert-link-with-messages',
      text: `WITH link AS (
          INSERT INTO "links" ("code", "url", "account_id", "clicks", "created_at", "updated_at", "expires_at")
          VALUES ($1, $2, $3, 0, $4, $4, $5) ON CONFLICT ("code") DO NOTHING RETURNING "code"
        ), messages AS (
          INSERT INTO "webhook_messages" (${MESSAGE_COLUMNS})
          SELECT ${POSTGRES_NEW_UUID}, e.id, ${POSTGRES_NEW_MESSAGE_ID}, $6, $7, 'pending', 0, $4, $4
          FROM link, "webhook_endpoints" e
          WHERE e.account_id = $8 AND e.disabled_at IS NULL AND e.events LIKE $9
        )
        SELECT count(*)::int AS inserted FROM link`,
      values: [
        link.code,
        link.url,
        link.accountId,
        now.toISOString(),
        link.expiresAt?.toISOString() ?? null,
        messages.event,
        messages.bodies.get(link.code) ?? null,
        messages.accountId,
        eventPattern(messages.event),
      ],
    });
    return rows[0]?.inserted === 1;
  }

  /**
   * One statement whatever the number of links: every column as an array (`unnest`); with
   * `messages`, the messages of the links it inserted in the same statement.
   */
  async insertMany(links: NewLink[], now: Date, messages?: OutboxMessages): Promise<Set<string>> {
    if (links.length === 0) return new Set();
    const insert = `INSERT INTO "links" ("code", "url", "account_id", "clicks", "created_at", "updated_at", "expires_at")
        SELECT code, url, account_id, COALESCE(clicks, 0), COALESCE(created_at, $7), $7, expires_at
        FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamp(3)[], $5::timestamp(3)[], $6::int[])
          AS t(code, url, account_id, expires_at, created_at, clicks)
        ON CONFLICT ("code") DO NOTHING RETURNING "code"`;
    const { rows } = await this.pool.query<{ code: string }>({
      name: messages ? 'insert-links-with-messages' : 'insert-links',
      text: messages
        ? `WITH inserted AS (${insert}), messages AS (
            INSERT INTO "webhook_messages" (${MESSAGE_COLUMNS})
            SELECT ${POSTGRES_NEW_UUID}, e.id, ${POSTGRES_NEW_MESSAGE_ID}, $8, b.body, 'pending', 0, $7, $7
            FROM inserted i
            JOIN unnest($9::text[], $10::text[]) AS b(code, body) ON b.code = i.code
            CROSS JOIN "webhook_endpoints" e
            WHERE e.account_id = $11 AND e.disabled_at IS NULL AND e.events LIKE $12
          )
          SELECT code FROM inserted`
        : insert,
      values: [
        links.map((link) => link.code),
        links.map((link) => link.url),
        links.map((link) => link.accountId),
        links.map((link) => link.expiresAt?.toISOString() ?? null),
        links.map((link) => link.createdAt?.toISOString() ?? null),
        links.map((link) => link.clicks ?? null),
        now.toISOString(),
        ...(messages
          ? [
              messages.event,
              [...messages.bodies.keys()],
              [...messages.bodies.values()],
              messages.accountId,
              eventPattern(messages.event),
            ]
          : []),
      ],
    });
    return new Set(rows.map((row) => row.code));
  }

  /**
   * The page and the account's kept link count in one round trip (a subquery, run once); past
   * the last page there is no row to carry it, so it is asked apart.
   */
  async listForAccount(accountId: string, limit: number, offset: number): Promise<StoredLinkPage> {
    const { rows } = await this.pool.query<LinkRow & { total: number }>({
      name: 'list-links',
      text: `SELECT ${LINK_COLUMNS}, (SELECT link_count FROM accounts WHERE id = $1)::float8 AS total
        FROM links WHERE account_id = $1
        ORDER BY created_at DESC, code ASC LIMIT $2 OFFSET $3`,
      values: [accountId, limit, offset],
    });
    if (rows.length > 0) return { links: rows.map(toStoredLink), total: rows[0].total };
    const count = await this.pool.query<{ total: number }>({
      name: 'count-links',
      text: 'SELECT link_count::float8 AS total FROM accounts WHERE id = $1',
      values: [accountId],
    });
    return { links: [], total: count.rows[0]?.total ?? 0 };
  }

  /**
   * ILIKE with the escaped pattern, which the trigram index (links_search_trgm_idx) serves for
   * three characters or more (for fewer, or a pattern most links match, the planner reads the
   * account's links); the total is a window count over the matches, found once.
   */
  async searchForAccount(accountId: string, pattern: string, limit: number, offset: number): Promise<StoredLinkPage> {
    const filter = "account_id = $1 AND (code ILIKE $2 ESCAPE '\\' OR url ILIKE $2 ESCAPE '\\')";
    const { rows } = await this.pool.query<LinkRow & { total: number }>({
      name: 'search-links',
      text: `SELECT ${LINK_COLUMNS}, (count(*) OVER ())::float8 AS total
        FROM links WHERE ${filter}
        ORDER BY created_at DESC, code ASC LIMIT $3 OFFSET $4`,
      values: [accountId, pattern, limit, offset],
    });
    if (rows.length > 0) return { links: rows.map(toStoredLink), total: rows[0].total };
    const count = await this.pool.query<{ total: number }>({
      name: 'count-search-links',
      text: `SELECT count(*)::float8 AS total FROM links WHERE ${filter}`,
      values: [accountId, pattern],
    });
    return { links: [], total: count.rows[0].total };
  }
}
