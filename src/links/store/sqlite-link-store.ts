import type { PrismaService } from '../../database/prisma.service.js';
import { SqliteWriterUnavailableError, toSqliteDateTime } from '../../database/sqlite-background-writer.js';
import type { SqliteConnections } from '../../database/sqlite-connections.js';
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

  async insert(link: NewLink, now: Date): Promise<boolean> {
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
    try {
      return (await this.sqlite.writer.run(sql, params)) === 1;
    } catch (error) {
      if (!(error instanceof SqliteWriterUnavailableError)) throw error;
    }
    return (await this.prisma.$executeRawUnsafe(sql, ...params)) === 1;
  }

  /** Multi-row VALUES of INSERT_BATCH rows per statement. */
  async insertMany(links: NewLink[], now: Date): Promise<Set<string>> {
    const at = toSqliteDateTime(now);
    const inserted = new Set<string>();
    for (let start = 0; start < links.length; start += INSERT_BATCH) {
      for (const code of await this.insertBatch(links.slice(start, start + INSERT_BATCH), at)) inserted.add(code);
    }
    return inserted;
  }

  /**
   * One multi-row INSERT; the codes it inserted. The writer answers with a count: when it is
   * short, the rows are read back to tell ours (this call's creation time, URL and owner) from
   * those whose code was taken.
   */
  private async insertBatch(batch: NewLink[], at: string): Promise<string[]> {
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
    try {
      const changes = await this.sqlite.writer.run(sql, params);
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
    const rows = await this.prisma.$queryRawUnsafe<Array<{ code: string }>>(`${sql} RETURNING "code"`, ...params);
    return rows.map((row) => row.code);
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
