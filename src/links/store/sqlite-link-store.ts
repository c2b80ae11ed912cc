import type { PrismaService } from '../../database/prisma.service.js';
import { SqliteWriterUnavailableError, toSqliteDateTime } from '../../database/sqlite-background-writer.js';
import type { SqliteConnections } from '../../database/sqlite-connections.js';
import type { WriterStatement } from '../../database/sqlite-writer-protocol.js';
import {
  MESSAGE_COLUMNS,
  SQLITE_NEW_MESSAGE_ID,
  SQLITE_NEW_UUID,
  type OutboxMessages,
} from '../../webhooks/outbox/outbox-messages.js';
import { eventPattern } from '../../webhooks/webhook-events.js';
import { LinkStore, type NewLink, type StoredLink, type StoredLinkPage } from './link-store.js';

/**
 * A `links` row as the list queries select it (LINK_COLUMNS, in this order), times as the ISO
 * text Prisma's adapter writes. Read as an array (`SqliteReader.tuples`): the list is the API's
 * most frequent read, and an object per row cost 8 % of its CPU.
 */
type LinkTuple = [
  code: string,
  url: string,
  accountId: string | null,
  clicks: number,
  clicksThroughBatch: number,
  createdAt: string,
  updatedAt: string,
  expiresAt: string | null,
];

/** A LinkTuple's link (a longer row, e.g. with the search's total after it, reads the same). */
function toStoredLink([code, url, accountId, clicks, clicksThroughBatch, createdAt, updatedAt, expiresAt]: [
  ...LinkTuple,
  ...unknown[],
]): StoredLink {
  return {
    code,
    url,
    accountId,
    clicks,
    clicksThroughBatch,
    createdAt: new Date(createdAt),
    updatedAt: new Date(updatedAt),
    expiresAt: expiresAt === null ? null : new Date(expiresAt),
  };
}

/** Rows per multi-row INSERT: 7 parameters each, far below SQLite's 32,766-variable limit. */
const INSERT_BATCH = 500;

/**
 * The webhook messages of links just inserted, run right after their INSERT in its transaction:
 * for each [code, url, body] of the JSON array whose row is the one this call wrote (its URL and
 * owner, updated at this call's time: a code that was taken keeps its own row, so gets no
 * message), one message to every enabled endpoint of the account subscribed to the event.
 * CROSS JOIN keeps the join order: left to itself, SQLite's planner read every link of the
 * account through its (account_id, …) index, a cost growing with the account.
 */
const INSERT_MESSAGES = `INSERT INTO "webhook_messages" (${MESSAGE_COLUMNS})
  SELECT ${SQLITE_NEW_UUID}, e.id, ${SQLITE_NEW_MESSAGE_ID}, ?, json_extract(m.value, '$[2]'), 'pending', 0, ?, ?
  FROM json_each(?) AS m
  CROSS JOIN "links" AS l ON l.code = json_extract(m.value, '$[0]') AND l.url = json_extract(m.value, '$[1]')
    AND l.account_id = ? AND l.updated_at = ?
  CROSS JOIN "webhook_endpoints" AS e ON e.account_id = l.account_id AND e.disabled_at IS NULL AND e.events LIKE ?`;

/**
 * The messages of one link just inserted: the INSERT just before it must have written its row
 * (`changes()` is that statement's count), so no lookup of the row is needed.
 */
const INSERT_ONE_MESSAGE = `INSERT INTO "webhook_messages" (${MESSAGE_COLUMNS})
  SELECT ${SQLITE_NEW_UUID}, e.id, ${SQLITE_NEW_MESSAGE_ID}, ?, ?, 'pending', 0, ?, ?
  FROM "webhook_endpoints" AS e
  WHERE e.account_id = ? AND e.disabled_at IS NULL AND e.events LIKE ? AND changes() = 1`;

/** The statement that writes the messages of `links`, run right after their INSERT. */
function messagesStatement(links: NewLink[], at: string, messages: OutboxMessages): WriterStatement {
  const pattern = eventPattern(messages.event);
  if (links.length === 1) {
    const body = messages.bodies.get(links[0].code) ?? null;
    return { sql: INSERT_ONE_MESSAGE, params: [messages.event, body, at, at, messages.accountId, pattern] };
  }
  const entries = links.flatMap((link) => {
    const body = messages.bodies.get(link.code);
    return body === undefined ? [] : [[link.code, link.url, body]];
  });
  return {
    sql: INSERT_MESSAGES,
    params: [messages.event, at, at, JSON.stringify(entries), messages.accountId, at, pattern],
  };
}

const LINK_COLUMNS = 'code, url, account_id, clicks, clicks_through_batch, created_at, updated_at, expires_at';
const NEWEST_FIRST = 'ORDER BY created_at DESC, code ASC LIMIT ? OFFSET ?';
const SEARCH_FILTER = "account_id = ? AND (code LIKE ? ESCAPE '\\' OR url LIKE ? ESCAPE '\\')";

/**
 * SQLite: reads on the service's read-only handle (synchronous, kept statements); inserts on the
 * background writer's thread. The SQLite driver is synchronous, so through Prisma an insert (and
 * every 1,000 pages a WAL checkpoint with an fsync) would run on the event loop; off it, the
 * event loop only posts the row. While no writer runs (it failed, and restarts a second later)
 * inserts go through Prisma's connection instead.
 */
export class SqliteLinkStore extends LinkStore {
  constructor(
    private readonly sqlite: SqliteConnections,
    private readonly prisma: PrismaService,
  ) {
    super();
  }

  async insert(link: NewLink, now: Date, messages?: OutboxMessages): Promise<boolean> {
    const at = toSqliteDateTime(now);
    const params = [
      link.code,
      link.url,
      link.accountId,
      at,
      at,
      link.expiresAt ? toSqliteDateTime(link.expiresAt) : null,
    ];
    const sql = `INSERT INTO "links" ("code", "url", "account_id", "clicks", "created_at", "updated_at", "expires_at")
      VALUES (?, ?, ?, 0, ?, ?, ?) ON CONFLICT ("code") DO NOTHING`;
    const then = messages ? [messagesStatement([link], at, messages)] : [];
    try {
      return (await this.sqlite.writer.runWith(sql, params, then)) === 1;
    } catch (error) {
      if (!(error instanceof SqliteWriterUnavailableError)) throw error;
    }
    const [changes] = await this.prisma.$transaction([
      this.prisma.$executeRawUnsafe(sql, ...params),
      ...then.map((next) => this.prisma.$executeRawUnsafe(next.sql, ...next.params)),
    ]);
    return changes === 1;
  }

  /** Multi-row VALUES of INSERT_BATCH rows per statement. */
  async insertMany(links: NewLink[], now: Date, messages?: OutboxMessages): Promise<Set<string>> {
    const at = toSqliteDateTime(now);
    const inserted = new Set<string>();
    for (let start = 0; start < links.length; start += INSERT_BATCH) {
      const batch = links.slice(start, start + INSERT_BATCH);
      for (const code of await this.insertBatch(batch, at, messages)) inserted.add(code);
    }
    return inserted;
  }

  /**
   * One multi-row INSERT; the codes it inserted. The writer answers with a count: when it is
   * short, the rows are read back to tell ours (this call's creation time, URL and owner) from
   * those whose code was taken.
   */
  private async insertBatch(batch: NewLink[], at: string, messages?: OutboxMessages): Promise<string[]> {
    // The click log's batches so far are not these links', even when an import backdates
    // `created_at` before them (a deleted link with the same code may be in them).
    const sql = `INSERT INTO "links" ("code", "url", "account_id", "clicks", "created_at", "updated_at", "expires_at",
        "clicks_through_batch")
      VALUES ${batch.map(() => '(?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX("id"), 0) FROM "click_batches"))').join(', ')}
      ON CONFLICT ("code") DO NOTHING`;
    const params = batch.flatMap((link) => [
      link.code,
      link.url,
      link.accountId,
      link.clicks ?? 0,
      link.createdAt ? toSqliteDateTime(link.createdAt) : at,
      at,
      link.expiresAt ? toSqliteDateTime(link.expiresAt) : null,
    ]);
    const then = messages ? [messagesStatement(batch, at, messages)] : [];
    try {
      const changes = await this.sqlite.writer.runWith(sql, params, then);
      if (changes === batch.length) return batch.map((link) => link.code);
      const stored = this.sqlite.reader.all<{ code: string; url: string; accountId: string | null; updatedAt: string }>(
        `SELECT code, url, account_id AS accountId, updated_at AS updatedAt FROM links
          WHERE code IN (${batch.map(() => '?').join(', ')})`,
        ...batch.map((link) => link.code),
      );
      const mine = new Map(batch.map((link) => [link.code, link]));
      return stored
        .filter((row) => {
          const link = mine.get(row.code);
          return link?.url === row.url && link.accountId === row.accountId && row.updatedAt === at;
        })
        .map((row) => row.code);
    } catch (error) {
      if (!(error instanceof SqliteWriterUnavailableError)) throw error;
    }
    const [rows] = await this.prisma.$transaction([
      this.prisma.$queryRawUnsafe<Array<{ code: string }>>(`${sql} RETURNING "code"`, ...params),
      ...then.map((next) => this.prisma.$executeRawUnsafe(next.sql, ...next.params)),
    ]);
    return (rows as Array<{ code: string }>).map((row) => row.code);
  }

  /** Two reads, not one transaction: a link created or deleted between them can show in one only. */
  listForAccount(accountId: string, limit: number, offset: number): Promise<StoredLinkPage> {
    const rows = this.sqlite.reader.tuples<LinkTuple>(
      `SELECT ${LINK_COLUMNS} FROM links WHERE account_id = ? ${NEWEST_FIRST}`,
      accountId,
      limit,
      offset,
    );
    const counted = this.sqlite.reader.get<{ total: number }>(
      'SELECT link_count AS total FROM accounts WHERE id = ?',
      accountId,
    );
    return Promise.resolve({ links: rows.map((row) => toStoredLink(row)), total: counted?.total ?? 0 });
  }

  /**
   * A search looks at every one of the account's links, so it does so once, the total riding
   * along as a window count. SQLite's LIKE ignores ASCII case, which for the ASCII text stored is
   * what ILIKE does on PostgreSQL.
   */
  searchForAccount(accountId: string, pattern: string, limit: number, offset: number): Promise<StoredLinkPage> {
    const rows = this.sqlite.reader.tuples<[...LinkTuple, total: number]>(
      `SELECT ${LINK_COLUMNS}, count(*) OVER () FROM links WHERE ${SEARCH_FILTER} ${NEWEST_FIRST}`,
      accountId,
      pattern,
      pattern,
      limit,
      offset,
    );
    if (rows.length > 0) return Promise.resolve({ links: rows.map((row) => toStoredLink(row)), total: rows[0][8] });
    const counted = this.sqlite.reader.get<{ total: number }>(
      `SELECT count(*) AS total FROM links WHERE ${SEARCH_FILTER}`,
      accountId,
      pattern,
      pattern,
    );
    return Promise.resolve({ links: [], total: counted?.total ?? 0 });
  }
}
