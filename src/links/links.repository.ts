import { Injectable } from '@nestjs/common';
import { PostgresDriver } from '../database/postgres-driver.js';
import { PrismaService } from '../database/prisma.service.js';
import { SqliteReader } from '../database/sqlite-reader.js';
import {
  SqliteBackgroundWriter,
  SqliteWriterUnavailableError,
  toSqliteDateTime,
} from '../database/sqlite-background-writer.js';

export interface LinkRecord {
  code: string;
  url: string;
  accountId: string | null;
  clicks: number;
  /** The last click batch `clicks` includes (see LoggedClicks). */
  clicksThroughBatch: number;
  createdAt: Date;
  updatedAt: Date;
  /** After this instant redirects answer 410; null: never. */
  expiresAt: Date | null;
}

/** What creating a link writes. */
export interface NewLink {
  code: string;
  url: string;
  accountId: string | null;
  expiresAt?: Date | null;
  /** Carried over by an import from another shortener; otherwise now, and 0. */
  createdAt?: Date;
  clicks?: number;
}

/** Rows per multi-row INSERT on SQLite: 7 parameters each, far below its 32,766-variable limit. */
const SQLITE_INSERT_BATCH = 500;

/** The columns of a LinkRecord, as the raw list queries select them (see `toLinkRecord`). */
type LinkRow = [
  string,
  string,
  string | null,
  number,
  number,
  string | number,
  string | number,
  string | number | null,
];

/** Both list queries' rows: dates as SQLite's ISO text or PostgreSQL's epoch milliseconds. */
function toLinkRecord([
  code,
  url,
  accountId,
  clicks,
  clicksThroughBatch,
  createdAt,
  updatedAt,
  expiresAt,
]: LinkRow): LinkRecord {
  return {
    code,
    url,
    accountId,
    clicks: Number(clicks),
    clicksThroughBatch: Number(clicksThroughBatch),
    createdAt: new Date(createdAt),
    updatedAt: new Date(updatedAt),
    expiresAt: expiresAt === null ? null : new Date(expiresAt),
  };
}

function toNewRecord(link: NewLink, now: Date): LinkRecord {
  return {
    ...link,
    expiresAt: link.expiresAt ?? null,
    clicks: link.clicks ?? 0,
    clicksThroughBatch: 0,
    createdAt: link.createdAt ?? now,
    updatedAt: now,
  };
}

/** Printable ASCII and the controls: all a stored code or URL is made of. */
// eslint-disable-next-line no-control-regex -- the whole ASCII range is the point
const ASCII = /^[\x00-\x7f]*$/;

/** Prisma's error code for "record to update not found". */
const RECORD_NOT_FOUND = 'P2025';

function hasPrismaCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

@Injectable()
export class LinksRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly sqliteWriter: SqliteBackgroundWriter,
    private readonly postgres: PostgresDriver,
    private readonly sqliteReader: SqliteReader,
  ) {}

  /**
   * Inserts a link unless its code exists. The code is the primary key, so the database decides
   * races: of concurrent inserts of one code exactly one succeeds, the others get null.
   */
  async insertIfCodeFree(data: NewLink): Promise<LinkRecord | null> {
    const now = new Date();
    const inserted = await this.insertRow(data, now);
    return inserted === 1 ? toNewRecord(data, now) : null;
  }

  /**
   * Inserts many links at once, skipping those whose code exists; returns the records inserted.
   * One statement per batch instead of a round trip per link: PostgreSQL takes every row as six
   * arrays (`unnest`), whatever their number; SQLite takes multi-row VALUES of 500 rows.
   */
  async insertManyIfCodesFree(links: NewLink[]): Promise<LinkRecord[]> {
    if (links.length === 0) return [];
    const now = new Date();
    const inserted = new Set<string>();
    if (this.postgres.prismaPool) {
      const { rows } = await this.postgres.prismaPool.query<[string]>({
        name: 'insert-links',
        text: `INSERT INTO "links" ("code", "url", "account_id", "clicks", "created_at", "updated_at", "expires_at")
          SELECT code, url, account_id, COALESCE(clicks, 0), COALESCE(created_at, $7), $7, expires_at
          FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamp(3)[], $5::timestamp(3)[], $6::int[])
            AS t(code, url, account_id, expires_at, created_at, clicks)
          ON CONFLICT ("code") DO NOTHING RETURNING "code"`,
        values: [
          links.map((link) => link.code),
          links.map((link) => link.url),
          links.map((link) => link.accountId),
          links.map((link) => link.expiresAt?.toISOString() ?? null),
          links.map((link) => link.createdAt?.toISOString() ?? null),
          links.map((link) => link.clicks ?? null),
          now.toISOString(),
        ],
        rowMode: 'array',
      });
      for (const [code] of rows) inserted.add(code);
    } else {
      const at = toSqliteDateTime(now);
      for (let start = 0; start < links.length; start += SQLITE_INSERT_BATCH) {
        const batch = links.slice(start, start + SQLITE_INSERT_BATCH);
        for (const code of await this.insertSqliteBatch(batch, at)) inserted.add(code);
      }
    }
    return links.filter((link) => inserted.has(link.code)).map((link) => toNewRecord(link, now));
  }

  /**
   * One multi-row INSERT on SQLite; returns the codes it inserted. On the background writer (off
   * the event loop, its statements kept) when it runs, else through Prisma. The writer answers
   * with a count: when it is short, the rows are read back to tell ours (this call's creation
   * time, URL and owner) from those whose code was taken.
   */
  private async insertSqliteBatch(batch: NewLink[], at: string): Promise<string[]> {
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
      const changes = await this.sqliteWriter.run(sql, params);
      if (changes === batch.length) return batch.map((link) => link.code);
      const stored = this.sqliteReader.rows<[string, string, string | null, string]>(
        `SELECT code, url, account_id, updated_at FROM links WHERE code IN (${batch.map(() => '?').join(', ')})`,
        batch.map((link) => link.code),
      );
      const mine = new Map(batch.map((link) => [link.code, link]));
      return stored
        .filter(([code, url, accountId, updatedAt]) => {
          const link = mine.get(code);
          return link?.url === url && link.accountId === accountId && updatedAt === at;
        })
        .map(([code]) => code);
    } catch (error) {
      if (!(error instanceof SqliteWriterUnavailableError)) throw error;
    }
    const rows = await this.prisma.$queryRawUnsafe<Array<{ code: string }>>(`${sql} RETURNING "code"`, ...params);
    return rows.map((row) => row.code);
  }

  /**
   * Raw SQL because creation is the write hot path: Prisma's `create` costs far more CPU per call
   * than one `INSERT … ON CONFLICT DO NOTHING`. The same values
   * Prisma would write (timestamps from the application, clicks 0); ON CONFLICT turns a taken
   * code into "0 rows" instead of an error.
   *
   * - SQLite: on the background writer's connection. Its driver is synchronous, so through Prisma
   *   the insert (and every 1,000 pages a WAL checkpoint with an fsync) would run on the event
   *   loop. Off it, the event loop only posts the row. Without a running writer the insert goes through Prisma.
   * - PostgreSQL: through the driver, on the connections Prisma uses (`PostgresDriver`), as a
   *   named prepared statement: parsed once per connection, and no conversion of parameters
   *   across Prisma's driver adapter. `created_at` is `timestamp(3)` without a time zone, holding
   *   UTC as Prisma writes it: the time goes as an ISO string in UTC, which PostgreSQL reads
   *   without its zone (a `Date` would be sent in the process's local time).
   */
  private async insertRow(data: NewLink, now: Date): Promise<number> {
    if (this.sqliteWriter.databaseIsSqlite) {
      const at = toSqliteDateTime(now);
      try {
        return await this.sqliteWriter.run(
          `INSERT INTO "links" ("code", "url", "account_id", "clicks", "created_at", "updated_at", "expires_at")
           VALUES (?, ?, ?, 0, ?, ?, ?) ON CONFLICT ("code") DO NOTHING`,
          [data.code, data.url, data.accountId, at, at, data.expiresAt ? toSqliteDateTime(data.expiresAt) : null],
        );
      } catch (error) {
        if (!(error instanceof SqliteWriterUnavailableError)) throw error;
      }
    }
    if (this.postgres.prismaPool) {
      const { rowCount } = await this.postgres.prismaPool.query({
        name: 'insert-link',
        text: `INSERT INTO "links" ("code", "url", "account_id", "clicks", "created_at", "updated_at", "expires_at")
          VALUES ($1, $2, $3, 0, $4, $4, $5) ON CONFLICT ("code") DO NOTHING`,
        values: [data.code, data.url, data.accountId, now.toISOString(), data.expiresAt?.toISOString() ?? null],
      });
      return rowCount ?? 0;
    }
    return this.prisma.$executeRaw`
      INSERT INTO "links" ("code", "url", "account_id", "clicks", "created_at", "updated_at", "expires_at")
      VALUES (${data.code}, ${data.url}, ${data.accountId}, 0, ${now}, ${now}, ${data.expiresAt ?? null})
      ON CONFLICT ("code") DO NOTHING`;
  }

  /** The account's link with this code; null for unknown codes and for other owners' links. */
  async findForAccount(code: string, accountId: string): Promise<LinkRecord | null> {
    const link = await this.prisma.link.findUnique({ where: { code } });
    return link?.accountId === accountId ? link : null;
  }

  /**
   * One page of the account's links, newest first, served by the (account_id, created_at, code)
   * index; with `search`, only links whose code or URL contains it, ignoring case (a plain
   * substring: `%`, `_` and `\` are ordinary characters). Raw SQL straight through the driver:
   * this is the API's most frequent read, and Prisma's query interpretation and result conversion
   * cost more CPU than the query itself.
   *
   * The total of a list is the account's link count, kept by triggers (migration
   * 20261125110000_account_link_counts): one row read however large the account. On SQLite the
   * page and the total are two reads, not one transaction: a link created or deleted between
   * them can show in one and not in the other.
   */
  async listForAccount(
    accountId: string,
    limit: number,
    offset: number,
    search?: string,
  ): Promise<{ links: LinkRecord[]; total: number }> {
    // Stored codes and URLs are ASCII (the URL parser percent-encodes and punycodes the rest):
    // a search with any other character matches nothing, on both databases alike (PostgreSQL's
    // lower() would fold a few of them, e.g. the Kelvin sign, into ASCII letters; SQLite's not).
    if (search !== undefined && !ASCII.test(search)) return { links: [], total: 0 };
    // The LIKE pattern for a plain substring: wildcards and the escape character escaped.
    const pattern = search === undefined ? undefined : `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    if (this.postgres.prismaPool) {
      // The page and the total in one round trip: the account's kept link count (a subquery, run
      // once), or for a search a window count over the matches, found once; past the last page
      // there is no row to carry it, so it is asked apart. A search is ILIKE with the escaped
      // pattern, which the trigram index (links_search_trgm_idx) serves for three characters or
      // more; for fewer, or a pattern most links match, the planner reads the account's links.
      const filter = search === undefined ? '' : "AND (code ILIKE $2 ESCAPE '\\' OR url ILIKE $2 ESCAPE '\\')";
      const countAlone =
        search === undefined
          ? 'SELECT link_count FROM accounts WHERE id = $1'
          : `SELECT count(*) FROM links WHERE account_id = $1 ${filter}`;
      const totalColumn = search === undefined ? `(${countAlone})` : 'count(*) OVER ()';
      const at = search === undefined ? 2 : 3;
      const params = search === undefined ? [accountId] : [accountId, pattern];
      const { rows } = await this.postgres.prismaPool.query<[...LinkRow, string]>({
        name: search === undefined ? 'list-links' : 'search-links',
        text: `SELECT code, url, account_id, clicks, clicks_through_batch,
            (extract(epoch FROM created_at) * 1000)::float8, (extract(epoch FROM updated_at) * 1000)::float8,
            (extract(epoch FROM expires_at) * 1000)::float8,
            ${totalColumn}
          FROM links WHERE account_id = $1 ${filter}
          ORDER BY created_at DESC, code ASC LIMIT $${at} OFFSET $${at + 1}`,
        values: [...params, limit, offset],
        rowMode: 'array',
      });
      if (rows.length > 0) {
        return { links: rows.map((row) => toLinkRecord(row.slice(0, 8) as LinkRow)), total: Number(rows[0][8]) };
      }
      const count = await this.postgres.prismaPool.query<[string | number | null]>({
        name: search === undefined ? 'count-links' : 'count-search-links',
        text: countAlone,
        values: params,
        rowMode: 'array',
      });
      return { links: [], total: Number(count.rows[0]?.[0] ?? 0) };
    }
    // SQLite: synchronous reads on the read-only handle. The list is an index range scan and the
    // account's kept link count. A search looks at every one of the account's links, so it
    // does so once, the total riding along as a window count. SQLite's LIKE ignores ASCII case,
    // which for the ASCII text stored is what lower() does on PostgreSQL.
    const columns = 'code, url, account_id, clicks, clicks_through_batch, created_at, updated_at, expires_at';
    const order = 'ORDER BY created_at DESC, code ASC LIMIT ? OFFSET ?';
    if (search === undefined) {
      const links = this.sqliteReader
        .rows<LinkRow>(`SELECT ${columns} FROM links WHERE account_id = ? ${order}`, [accountId, limit, offset])
        .map(toLinkRecord);
      const [counted] = this.sqliteReader.rows<[number]>('SELECT link_count FROM accounts WHERE id = ?', [accountId]);
      return { links, total: counted?.[0] ?? 0 };
    }
    const filter = "account_id = ? AND (code LIKE ? ESCAPE '\\' OR url LIKE ? ESCAPE '\\')";
    const rows = this.sqliteReader.rows<[...LinkRow, number]>(
      `SELECT ${columns}, count(*) OVER () FROM links WHERE ${filter} ${order}`,
      [accountId, pattern, pattern, limit, offset],
    );
    if (rows.length > 0) {
      return { links: rows.map((row) => toLinkRecord(row.slice(0, 8) as LinkRow)), total: rows[0][8] };
    }
    const [[total]] = this.sqliteReader.rows<[number]>(`SELECT count(*) FROM links WHERE ${filter}`, [
      accountId,
      pattern,
      pattern,
    ]);
    return { links: [], total };
  }

  /**
   * Changes the target and/or the expiry of the account's link (undefined: unchanged; a null
   * expiry removes it); null when the account has no such link.
   */
  async updateForAccount(
    code: string,
    accountId: string,
    changes: { url?: string; expiresAt?: Date | null },
  ): Promise<LinkRecord | null> {
    try {
      return await this.prisma.link.update({ where: { code, accountId }, data: changes });
    } catch (error) {
      if (hasPrismaCode(error, RECORD_NOT_FOUND)) return null;
      throw error;
    }
  }

  /** Up to `limit` of the account's links after `after`, oldest first (created_at, then code). */
  pageForExport(accountId: string, limit: number, after?: { createdAt: Date; code: string }): Promise<LinkRecord[]> {
    return this.prisma.link.findMany({
      where: after
        ? {
            accountId,
            OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, code: { gt: after.code } }],
          }
        : { accountId },
      orderBy: [{ createdAt: 'asc' }, { code: 'asc' }],
      take: limit,
    });
  }

  /** Every code of an account (for invalidating their cached redirects). */
  async codesOfAccount(accountId: string): Promise<string[]> {
    const rows = await this.prisma.link.findMany({ where: { accountId }, select: { code: true } });
    return rows.map((row) => row.code);
  }

  /** Deletes the account's link; false when the account has no such link. */
  async deleteForAccount(code: string, accountId: string): Promise<boolean> {
    const { count } = await this.prisma.link.deleteMany({ where: { code, accountId } });
    return count > 0;
  }
}
