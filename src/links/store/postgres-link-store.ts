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
  disabledAt: number | null;
  /** Sorted; `{}` (an empty array) for none. */
  tags: string[];
  passwordProtected: boolean;
  iosUrl: string | null;
  androidUrl: string | null;
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
    disabledAt: row.disabledAt === null ? null : new Date(row.disabledAt),
    tags: row.tags,
    passwordProtected: row.passwordProtected,
    iosUrl: row.iosUrl,
    androidUrl: row.androidUrl,
  };
}

/**
 * The columns of a LinkRow. The timestamps are `timestamp(3)` without a time zone, holding UTC
 * as Prisma writes them: their epoch is read as UTC whatever the process's time zone (the driver
 * would parse them in local time).
 */
const LINK_COLUMNS = `l.code, l.url, l.account_id AS "accountId", l.clicks, l.clicks_through_batch AS "clicksThroughBatch",
  (extract(epoch FROM l.created_at) * 1000)::float8 AS "createdAt",
  (extract(epoch FROM l.updated_at) * 1000)::float8 AS "updatedAt",
  (extract(epoch FROM l.expires_at) * 1000)::float8 AS "expiresAt",
  l.password_hash IS NOT NULL AS "passwordProtected", l.ios_url AS "iosUrl", l.android_url AS "androidUrl",
  (extract(epoch FROM l.disabled_at) * 1000)::float8 AS "disabledAt"`;

/**
 * The tags of the link `page.code`, one index read of link_tags' primary key per link. Asked in
 * an outer query of the page's rows: in the page's own select list PostgreSQL would run it for
 * every row the offset skips, and a search's window count reads every match.
 */
const TAGS = 'ARRAY(SELECT t.tag FROM link_tags t WHERE t.code = page.code ORDER BY t.tag) AS tags';
/** The page's rows (an inner query aliased `page`) in their order. */
const PAGE_ORDER = 'ORDER BY page."createdAt" DESC, page.code ASC';
const MATCHES = "(l.code ILIKE $2 ESCAPE '\\' OR l.url ILIKE $2 ESCAPE '\\')";

const INSERT_LINK = `INSERT INTO "links" ("code", "url", "account_id", "clicks", "created_at", "updated_at", "expires_at",
    "password_hash", "ios_url", "android_url")
  VALUES ($1, $2, $3, 0, $4, $4, $5, $6, $7, $8) ON CONFLICT ("code") DO NOTHING`;

/**
 * Links as `unnest` arrays (code, url, account, expiry, creation, clicks, password hash, iOS and
 * Android targets) and $7 the time now, inserted unless their code exists; `inserted` is the
 * rows written.
 */
const INSERT_LINKS = `INSERT INTO "links" ("code", "url", "account_id", "clicks", "created_at", "updated_at", "expires_at",
    "password_hash", "ios_url", "android_url")
  SELECT code, url, account_id, COALESCE(clicks, 0), COALESCE(created_at, $7), $7, expires_at,
    password_hash, ios_url, android_url
  FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamp(3)[], $5::timestamp(3)[], $6::int[],
      $8::text[], $9::text[], $10::text[])
    AS t(code, url, account_id, expires_at, created_at, clicks, password_hash, ios_url, android_url)
  ON CONFLICT ("code") DO NOTHING RETURNING "code", "account_id", "created_at"`;

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

  /**
   * One statement (so one transaction): the link, and when it was written (not when its code was
   * taken), its tags and its webhook messages (to every enabled endpoint of the account subscribed
   * to the event, read by the same statement).
   */
  protected async write(link: NewLink, now: Date, messages?: OutboxMessages): Promise<boolean> {
    const values: unknown[] = [
      link.code,
      link.url,
      link.accountId,
      now.toISOString(),
      link.expiresAt?.toISOString() ?? null,
      link.passwordHash ?? null,
      link.iosUrl ?? null,
      link.androidUrl ?? null,
    ];
    const tagged = Boolean(link.tags?.length);
    if (!tagged && !messages) {
      const { rowCount } = await this.pool.query({ name: 'insert-link', text: INSERT_LINK, values });
      return rowCount === 1;
    }
    const parts = [`inserted AS (${INSERT_LINK} RETURNING "code", "account_id", "created_at")`];
    if (tagged) {
      values.push(link.tags);
      parts.push(`tagged AS (INSERT INTO "link_tags" ("code", "tag", "account_id", "created_at")
        SELECT inserted.code, tag, inserted.account_id, inserted.created_at FROM inserted, unnest($${values.length}::text[]) AS tag)`);
    }
    if (messages) {
      const first = values.length + 1;
      values.push(
        messages.event,
        messages.bodies.get(link.code) ?? null,
        messages.accountId,
        eventPattern(messages.event),
      );
      parts.push(`messages AS (INSERT INTO "webhook_messages" (${MESSAGE_COLUMNS})
        SELECT ${POSTGRES_NEW_UUID}, e.id, ${POSTGRES_NEW_MESSAGE_ID}, $${first}, $${first + 1}, 'pending', 0, $4, $4
        FROM inserted, "webhook_endpoints" e
        WHERE e.account_id = $${first + 2} AND e.disabled_at IS NULL AND e.events LIKE $${first + 3})`);
    }
    const { rows } = await this.pool.query<{ inserted: number }>({
      name: `insert-link${tagged ? '-tagged' : ''}${messages ? '-with-messages' : ''}`,
      text: `WITH ${parts.join(', ')} SELECT count(*)::int AS inserted FROM inserted`,
      values,
    });
    return rows[0]?.inserted === 1;
  }

  /**
   * One statement whatever the number of links: every column as an array (`unnest`), the tags as
   * two arrays of (code, tag) pairs, written for the links the statement inserted, and with
   * `messages` the webhook messages of those links.
   */
  protected async writeMany(links: NewLink[], now: Date, messages?: OutboxMessages): Promise<Set<string>> {
    if (links.length === 0) return new Set();
    const tagged = links.flatMap((link) => (link.tags ?? []).map((tag) => [link.code, tag]));
    const { rows } = await this.pool.query<{ code: string }>({
      name: messages ? 'insert-links-with-messages' : 'insert-links',
      text: `WITH inserted AS (${INSERT_LINKS}),
        tagged AS (INSERT INTO "link_tags" ("code", "tag", "account_id", "created_at")
          SELECT inserted.code, t.tag, inserted.account_id, inserted.created_at
          FROM unnest($11::text[], $12::text[]) AS t(code, tag) JOIN inserted ON inserted.code = t.code)${
            messages
              ? `, messages AS (
            INSERT INTO "webhook_messages" (${MESSAGE_COLUMNS})
            SELECT ${POSTGRES_NEW_UUID}, e.id, ${POSTGRES_NEW_MESSAGE_ID}, $13, b.body, 'pending', 0, $7, $7
            FROM inserted i
            JOIN unnest($14::text[], $15::text[]) AS b(code, body) ON b.code = i.code
            CROSS JOIN "webhook_endpoints" e
            WHERE e.account_id = $16 AND e.disabled_at IS NULL AND e.events LIKE $17
          )`
              : ''
          }
        SELECT code FROM inserted`,
      values: [
        links.map((link) => link.code),
        links.map((link) => link.url),
        links.map((link) => link.accountId),
        links.map((link) => link.expiresAt?.toISOString() ?? null),
        links.map((link) => link.createdAt?.toISOString() ?? null),
        links.map((link) => link.clicks ?? null),
        now.toISOString(),
        links.map((link) => link.passwordHash ?? null),
        links.map((link) => link.iosUrl ?? null),
        links.map((link) => link.androidUrl ?? null),
        tagged.map(([code]) => code),
        tagged.map(([, tag]) => tag),
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

  async findForAccount(code: string, accountId: string): Promise<StoredLink | undefined> {
    const { rows } = await this.pool.query<LinkRow>({
      name: 'find-link',
      text: `SELECT page.*, ${TAGS} FROM (
          SELECT ${LINK_COLUMNS} FROM links l WHERE l.code = $1 AND l.account_id = $2) page`,
      values: [code, accountId],
    });
    return rows.length === 0 ? undefined : toStoredLink(rows[0]);
  }

  /**
   * The page and the account's (or the tag's) kept link count in one round trip (a subquery, run
   * once); past the last page there is no row to carry it, so it is asked apart. With a tag, the
   * page's codes come from the tag's index range first (the links skipped by the offset are not
   * read), then their links.
   */
  async listForAccount(accountId: string, limit: number, offset: number, tag?: string): Promise<StoredLinkPage> {
    const { rows } =
      tag === undefined
        ? await this.pool.query<LinkRow & { total: number }>({
            name: 'list-links',
            text: `SELECT page.*, ${TAGS} FROM (
                SELECT ${LINK_COLUMNS}, (SELECT link_count FROM accounts WHERE id = $1)::float8 AS total
                FROM links l WHERE l.account_id = $1
                ORDER BY l.created_at DESC, l.code ASC LIMIT $2 OFFSET $3) page
              ${PAGE_ORDER}`,
            values: [accountId, limit, offset],
          })
        : await this.pool.query<LinkRow & { total: number }>({
            name: 'list-tagged-links',
            text: `SELECT page.*, ${TAGS} FROM (
                SELECT ${LINK_COLUMNS},
                  (SELECT link_count FROM account_tags WHERE account_id = $1 AND tag = $2)::float8 AS total
                FROM (SELECT code FROM link_tags WHERE account_id = $1 AND tag = $2
                  ORDER BY created_at DESC, code ASC LIMIT $3 OFFSET $4) tagged
                JOIN links l ON l.code = tagged.code) page
              ${PAGE_ORDER}`,
            values: [accountId, tag, limit, offset],
          });
    if (rows.length > 0) return { links: rows.map(toStoredLink), total: rows[0].total };
    const count =
      tag === undefined
        ? await this.pool.query<{ total: number }>({
            name: 'count-links',
            text: 'SELECT link_count::float8 AS total FROM accounts WHERE id = $1',
            values: [accountId],
          })
        : await this.pool.query<{ total: number }>({
            name: 'count-tagged-links',
            text: 'SELECT link_count::float8 AS total FROM account_tags WHERE account_id = $1 AND tag = $2',
            values: [accountId, tag],
          });
    return { links: [], total: count.rows[0]?.total ?? 0 };
  }

  /**
   * ILIKE with the escaped pattern, which the trigram index (links_search_trgm_idx) serves for
   * three characters or more (for fewer, or a pattern most links match, the planner reads the
   * account's links); with a tag, the planner may start from the tag's links instead. The total
   * is a window count over the matches, found once.
   */
  async searchForAccount(
    accountId: string,
    pattern: string,
    limit: number,
    offset: number,
    tag?: string,
  ): Promise<StoredLinkPage> {
    const [name, from, values] =
      tag === undefined
        ? ['links', 'links l WHERE l.account_id = $1', [accountId, pattern]]
        : [
            'tagged-links',
            'link_tags tagged JOIN links l ON l.code = tagged.code WHERE tagged.account_id = $1 AND tagged.tag = $3',
            [accountId, pattern, tag],
          ];
    const at = values.length;
    const { rows } = await this.pool.query<LinkRow & { total: number }>({
      name: `search-${name}`,
      text: `SELECT page.*, ${TAGS} FROM (
          SELECT ${LINK_COLUMNS}, (count(*) OVER ())::float8 AS total FROM ${from} AND ${MATCHES}
          ORDER BY l.created_at DESC, l.code ASC LIMIT $${at + 1} OFFSET $${at + 2}) page
        ${PAGE_ORDER}`,
      values: [...values, limit, offset],
    });
    if (rows.length > 0) return { links: rows.map(toStoredLink), total: rows[0].total };
    const count = await this.pool.query<{ total: number }>({
      name: `count-search-${name}`,
      text: `SELECT count(*)::float8 AS total FROM ${from} AND ${MATCHES}`,
      values,
    });
    return { links: [], total: count.rows[0].total };
  }
}
