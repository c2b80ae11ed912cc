import type { PrismaService } from '../../database/prisma.service.js';
import { SqliteWriterUnavailableError, toSqliteDateTime } from '../../database/sqlite-background-writer.js';
import type { SqliteConnections } from '../../database/sqlite-connections.js';
import { fromSqliteDateTime } from '../../database/sqlite-date-time.js';
import type { WriterStatement } from '../../database/sqlite-writer-protocol.js';
import {
  NEW_MESSAGE_COLUMNS,
  SQLITE_NEW_MESSAGE_ID,
  SQLITE_NEW_UUID,
  type OutboxMessages,
} from '../../webhooks/outbox/outbox-messages.js';
import { eventToken } from '../../webhooks/webhook-events.js';
import { LinkStore, type NewLink, type StoredLink, type StoredLinkPage } from './link-store.js';

/**
 * A `links` row as the list queries select it (LINK_COLUMNS, in this order), times as the ISO
 * text Prisma's adapter writes, and its tags separated by spaces (TAGS: null for none). Read as
 * an array (`SqliteReader.tuples`): the list is the API's most frequent read, and an object per
 * row cost 8 % of its CPU.
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
  passwordProtected: 0 | 1,
  iosUrl: string | null,
  androidUrl: string | null,
  disabledAt: string | null,
  tags: string | null,
];

/** A LinkTuple's link (a longer row, e.g. with the search's total after it, reads the same). */
function toStoredLink([
  code,
  url,
  accountId,
  clicks,
  clicksThroughBatch,
  createdAt,
  updatedAt,
  expiresAt,
  passwordProtected,
  iosUrl,
  androidUrl,
  disabledAt,
  tags,
]: [...LinkTuple, ...unknown[]]): StoredLink {
  return {
    code,
    url,
    accountId,
    clicks,
    clicksThroughBatch,
    // Printed again by the API as they are stored (see fromSqliteDateTime).
    createdAt: fromSqliteDateTime(createdAt),
    updatedAt: fromSqliteDateTime(updatedAt),
    expiresAt: expiresAt === null ? null : fromSqliteDateTime(expiresAt),
    disabledAt: disabledAt === null ? null : fromSqliteDateTime(disabledAt),
    // Tags are made of [a-z0-9-]: a space cannot be in one.
    tags: tags === null ? [] : tags.split(' ').sort(),
    passwordProtected: passwordProtected === 1,
    iosUrl,
    androidUrl,
  };
}

/** Where a list's or a search's total is in its row: after the LinkTuple. */
const PAGE_TOTAL = 13;
/** How many links an account has, and how many of them have a tag: counted as links are written. */
const ACCOUNT_TOTAL = 'SELECT coalesce(max(link_count), 0) FROM accounts WHERE id = ?';
const TAG_TOTAL = 'SELECT coalesce(max(link_count), 0) FROM account_tags WHERE account_id = ? AND tag = ?';

/** Rows per multi-row INSERT: 10 parameters each, far below SQLite's 32,766-variable limit. */
const INSERT_BATCH = 500;

/** The stored columns a LinkTuple is made of, from the links aliased `l` in every list statement. */
const STORED_COLUMNS =
  'l.code, l.url, l.account_id, l.clicks, l.clicks_through_batch, l.created_at, l.updated_at, l.expires_at, l.password_hash, l.ios_url, l.android_url, l.disabled_at';
/** The columns of a LinkTuple but its tags: the stored ones, the password's hash only as whether there is one. */
const LINK_COLUMNS =
  'l.code, l.url, l.account_id, l.clicks, l.clicks_through_batch, l.created_at, l.updated_at, l.expires_at, l.password_hash IS NOT NULL, l.ios_url, l.android_url, l.disabled_at';
/**
 * The link's tags, one index read of link_tags' primary key per link. Evaluated for the page's
 * rows only: for a search it is asked outside the window count (which reads every match).
 */
const TAGS = "(SELECT group_concat(t.tag, ' ') FROM link_tags t WHERE t.code = l.code)";
const NEWEST_FIRST = 'ORDER BY l.created_at DESC, l.code ASC';
const PAGE = `${NEWEST_FIRST} LIMIT ? OFFSET ?`;
const MATCHES = "(l.code LIKE ? ESCAPE '\\' OR l.url LIKE ? ESCAPE '\\')";
/** The account's links with a tag, from link_tags' (account_id, tag, created_at, code) index. */
const TAGGED = 'link_tags tagged JOIN links l ON l.code = tagged.code WHERE tagged.account_id = ? AND tagged.tag = ?';

/** Creating a link: nothing when its code is taken. */
const INSERT_LINK = `INSERT INTO "links" ("code", "url", "account_id", "clicks", "created_at", "updated_at", "expires_at",
    "password_hash", "ios_url", "android_url")
  VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?, ?) ON CONFLICT ("code") DO NOTHING`;
/**
 * A link's tags (a JSON array), when the statement just before (INSERT_LINK, or a row of a bulk
 * insert) inserted the link: `changes()` is what that statement changed (0 when the code was
 * taken, and then another account's link must not get them), read once, before any tag row.
 * The account and creation time are copied from the row.
 */
const INSERT_TAGS_OF_INSERTED = `INSERT INTO "link_tags" ("code", "tag", "account_id", "created_at")
  SELECT l.code, j.value, l.account_id, l.created_at FROM "links" l, json_each(?) j
  WHERE l.code = ? AND (SELECT changes()) = 1`;
/** One row of a bulk insert (see `insertBatch`). */
const BULK_ROW = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX("id"), 0) FROM "click_batches"))';
const BULK_INSERT = (rows: number) => `INSERT INTO "links" ("code", "url", "account_id", "clicks", "created_at",
    "updated_at", "expires_at", "password_hash", "ios_url", "android_url", "clicks_through_batch")
  VALUES ${Array.from({ length: rows }, () => BULK_ROW).join(', ')}
  ON CONFLICT ("code") DO NOTHING`;

/**
 * The webhook messages of links just inserted, run right after their INSERT in its transaction:
 * for each [code, url, body] of the JSON array whose row is the one this call wrote (its URL and
 * owner, updated at this call's time: a code that was taken keeps its own row, so gets no
 * message), one message to every enabled endpoint of the account subscribed to the event.
 * CROSS JOIN keeps the join order: left to itself, SQLite's planner read every link of the
 * account through its (account_id, …) index, a cost growing with the account.
 *
 * Messages go to `webhook_new_messages` (one b-tree, appended to), not to `webhook_messages`
 * (four b-trees): whoever delivers moves them there before it claims (SqliteWebhookMessageStore,
 * ADR 0007).
 */
const INSERT_MESSAGES = `INSERT INTO "webhook_new_messages" (${NEW_MESSAGE_COLUMNS})
  SELECT ${SQLITE_NEW_UUID}, e.id, ${SQLITE_NEW_MESSAGE_ID}, ?, json_extract(m.value, '$[2]'), ?
  FROM json_each(?) AS m
  CROSS JOIN "links" AS l ON l.code = json_extract(m.value, '$[0]') AND l.url = json_extract(m.value, '$[1]')
    AND l.account_id = ? AND l.updated_at = ?
  CROSS JOIN "webhook_endpoints" AS e ON e.account_id = l.account_id AND e.disabled_at IS NULL AND instr(e.events, ?) > 0`;

/**
 * The messages of one link just inserted: the INSERT just before it must have written its row
 * (`changes()` is that statement's count), so no lookup of the row is needed.
 */
const INSERT_ONE_MESSAGE = `INSERT INTO "webhook_new_messages" (${NEW_MESSAGE_COLUMNS})
  SELECT ${SQLITE_NEW_UUID}, e.id, ${SQLITE_NEW_MESSAGE_ID}, ?, ?, ?
  FROM "webhook_endpoints" AS e
  WHERE e.account_id = ? AND e.disabled_at IS NULL AND instr(e.events, ?) > 0 AND changes() = 1`;

/**
 * The statement that writes the messages of `links`. `followsInsert`: it runs right after the
 * one INSERT of a single link (so `changes()` tells whether that link was written); otherwise the
 * rows are told ours by URL, owner and write time.
 */
function messagesStatement(
  links: NewLink[],
  at: string,
  messages: OutboxMessages,
  followsInsert = true,
): WriterStatement {
  const pattern = eventToken(messages.event);
  if (links.length === 1 && followsInsert) {
    const body = messages.bodies.get(links[0].code) ?? null;
    return { sql: INSERT_ONE_MESSAGE, params: [messages.event, body, at, messages.accountId, pattern] };
  }
  const entries = links.flatMap((link) => {
    const body = messages.bodies.get(link.code);
    return body === undefined ? [] : [[link.code, link.url, body]];
  });
  return {
    sql: INSERT_MESSAGES,
    params: [messages.event, at, JSON.stringify(entries), messages.accountId, at, pattern],
  };
}

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

  /** With tags, the link and its tags in one request: written together, or neither (and its webhook messages). */
  protected async write(link: NewLink, now: Date, messages?: OutboxMessages): Promise<boolean> {
    const at = toSqliteDateTime(now);
    const params = [
      link.code,
      link.url,
      link.accountId,
      at,
      at,
      link.expiresAt ? toSqliteDateTime(link.expiresAt) : null,
      link.passwordHash ?? null,
      link.iosUrl ?? null,
      link.androidUrl ?? null,
    ];
    if (link.tags?.length) {
      // The tags' statement reads `changes()` of the link's INSERT, so it comes right after it;
      // the messages then tell the link ours by its row.
      const statements: WriterStatement[] = [
        { sql: INSERT_LINK, params },
        { sql: INSERT_TAGS_OF_INSERTED, params: [JSON.stringify(link.tags), link.code] },
      ];
      if (messages) statements.push(messagesStatement([link], at, messages, false));
      const [inserted] = await this.writeAll(statements);
      return inserted === 1;
    }
    const then = messages ? [messagesStatement([link], at, messages)] : [];
    try {
      return (await this.sqlite.writer.runWith(INSERT_LINK, params, then)) === 1;
    } catch (error) {
      if (!(error instanceof SqliteWriterUnavailableError)) throw error;
    }
    const [changes] = await this.writeAll([{ sql: INSERT_LINK, params }, ...then]);
    return changes === 1;
  }

  /** Multi-row VALUES of INSERT_BATCH rows per statement. */
  protected async writeMany(links: NewLink[], now: Date, messages?: OutboxMessages): Promise<Set<string>> {
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
   * those whose code was taken. (The click log's batches so far are not these links', even when
   * an import backdates `created_at` before them: a deleted link with the same code may be in
   * them.) A batch with tags goes row by row instead (`insertTaggedBatch`).
   */
  private async insertBatch(batch: NewLink[], at: string, messages?: OutboxMessages): Promise<string[]> {
    if (batch.some((link) => link.tags?.length)) return this.insertTaggedBatch(batch, at, messages);
    const sql = BULK_INSERT(batch.length);
    const params = batch.flatMap((link) => bulkRow(link, at));
    const then = messages ? [messagesStatement(batch, at, messages, false)] : [];
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

  /**
   * A batch with tags: each link by a one-row INSERT followed by its tags' (when it has any), and
   * the batch's webhook messages, all in one request, so each link is written with its tags or not at all, and the rows each INSERT
   * changed say which links were ours.
   */
  private async insertTaggedBatch(batch: NewLink[], at: string, messages?: OutboxMessages): Promise<string[]> {
    const statements: WriterStatement[] = [];
    const linkStatement: number[] = [];
    for (const link of batch) {
      linkStatement.push(statements.length);
      statements.push({ sql: BULK_INSERT(1), params: bulkRow(link, at) });
      if (link.tags?.length) {
        statements.push({ sql: INSERT_TAGS_OF_INSERTED, params: [JSON.stringify(link.tags), link.code] });
      }
    }
    // The batch's webhook messages last, in the same request: the links told ours by their rows.
    if (messages) statements.push(messagesStatement(batch, at, messages, false));
    const changes = await this.writeAll(statements);
    return batch.filter((_, i) => changes[linkStatement[i]] === 1).map((link) => link.code);
  }

  /**
   * Statements written together or not at all, on the writer's thread or, while none runs,
   * through Prisma's connection in one transaction; the rows each changed.
   */
  private async writeAll(statements: WriterStatement[]): Promise<number[]> {
    try {
      return await this.sqlite.writer.runAll(statements);
    } catch (error) {
      if (!(error instanceof SqliteWriterUnavailableError)) throw error;
    }
    return this.prisma.$transaction(statements.map(({ sql, params }) => this.prisma.$executeRawUnsafe(sql, ...params)));
  }

  findForAccount(code: string, accountId: string): Promise<StoredLink | undefined> {
    const [row] = this.sqlite.reader.tuples<LinkTuple>(
      `SELECT ${LINK_COLUMNS}, ${TAGS} FROM links l WHERE l.code = ? AND l.account_id = ?`,
      code,
      accountId,
    );
    return Promise.resolve(row === undefined ? undefined : toStoredLink(row));
  }

  /**
   * With a tag, the page's codes come from the tag's index range first (so the links skipped by
   * the offset are not read), then their links. A page past the end reads its total apart: two
   * reads, not one transaction, so a link created or deleted between them can show in one only.
   */
  listForAccount(accountId: string, limit: number, offset: number, tag?: string): Promise<StoredLinkPage> {
    // The total rides along on each row (one statement a page, where a second one to count cost
    // 5–20 µs of a list call); a page past the end has no row to carry it and asks for it alone.
    const rows =
      tag === undefined
        ? this.sqlite.reader.tuples<[...LinkTuple, total: number]>(
            `SELECT ${LINK_COLUMNS}, ${TAGS}, (${ACCOUNT_TOTAL}) FROM links l WHERE l.account_id = ? ${PAGE}`,
            accountId,
            accountId,
            limit,
            offset,
          )
        : this.sqlite.reader.tuples<[...LinkTuple, total: number]>(
            `SELECT ${LINK_COLUMNS}, ${TAGS}, (${TAG_TOTAL}) FROM (
              SELECT code, created_at FROM link_tags WHERE account_id = ? AND tag = ?
              ORDER BY created_at DESC, code ASC LIMIT ? OFFSET ?) page
            JOIN links l ON l.code = page.code ORDER BY page.created_at DESC, page.code ASC`,
            accountId,
            tag,
            accountId,
            tag,
            limit,
            offset,
          );
    if (rows.length > 0) {
      return Promise.resolve({ links: rows.map((row) => toStoredLink(row)), total: rows[0][PAGE_TOTAL] });
    }
    const counted =
      tag === undefined
        ? this.sqlite.reader.get<{ total: number }>(`SELECT (${ACCOUNT_TOTAL}) AS total`, accountId)
        : this.sqlite.reader.get<{ total: number }>(`SELECT (${TAG_TOTAL}) AS total`, accountId, tag);
    return Promise.resolve({ links: [], total: counted?.total ?? 0 });
  }

  /**
   * A search looks at every one of the account's links (with a tag, every link with it) once,
   * the total riding along as a window count; the page's tags are read outside it, for its rows
   * only. SQLite's LIKE ignores ASCII case, which for the ASCII text stored is what ILIKE does on
   * PostgreSQL.
   */
  searchForAccount(
    accountId: string,
    pattern: string,
    limit: number,
    offset: number,
    tag?: string,
  ): Promise<StoredLinkPage> {
    const [from, filter] =
      tag === undefined ? ['links l WHERE l.account_id = ?', [accountId]] : [TAGGED, [accountId, tag]];
    const rows = this.sqlite.reader.tuples<[...LinkTuple, total: number]>(
      `SELECT ${LINK_COLUMNS}, ${TAGS}, l.total FROM (
        SELECT ${STORED_COLUMNS}, count(*) OVER () AS total FROM ${from} AND ${MATCHES} ${PAGE}) l
      ${NEWEST_FIRST}`,
      ...filter,
      pattern,
      pattern,
      limit,
      offset,
    );
    if (rows.length > 0) {
      return Promise.resolve({ links: rows.map((row) => toStoredLink(row)), total: rows[0][PAGE_TOTAL] });
    }
    const counted = this.sqlite.reader.get<{ total: number }>(
      `SELECT count(*) AS total FROM ${from} AND ${MATCHES}`,
      ...filter,
      pattern,
      pattern,
    );
    return Promise.resolve({ links: [], total: counted?.total ?? 0 });
  }
}

/** A link's parameters of BULK_ROW. */
function bulkRow(link: NewLink, at: string): unknown[] {
  return [
    link.code,
    link.url,
    link.accountId,
    link.clicks ?? 0,
    link.createdAt ? toSqliteDateTime(link.createdAt) : at,
    at,
    link.expiresAt ? toSqliteDateTime(link.expiresAt) : null,
    link.passwordHash ?? null,
    link.iosUrl ?? null,
    link.androidUrl ?? null,
  ];
}
