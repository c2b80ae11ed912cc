import { Injectable } from '@nestjs/common';
import { PostgresDriver } from '../database/postgres-driver.js';
import { PrismaService } from '../database/prisma.service.js';
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
}

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
  ) {}

  /**
   * Inserts a link unless its code exists. The code is the primary key, so the database decides
   * races: of concurrent inserts of one code exactly one succeeds, the others get null.
   */
  async insertIfCodeFree(data: { code: string; url: string; accountId: string | null }): Promise<LinkRecord | null> {
    const now = new Date();
    const inserted = await this.insertRow(data, now);
    return inserted === 1 ? { ...data, clicks: 0, clicksThroughBatch: 0, createdAt: now, updatedAt: now } : null;
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
  private async insertRow(data: { code: string; url: string; accountId: string | null }, now: Date): Promise<number> {
    if (this.sqliteWriter.databaseIsSqlite) {
      const at = toSqliteDateTime(now);
      try {
        return await this.sqliteWriter.run(
          `INSERT INTO "links" ("code", "url", "account_id", "clicks", "created_at", "updated_at")
           VALUES (?, ?, ?, 0, ?, ?) ON CONFLICT ("code") DO NOTHING`,
          [data.code, data.url, data.accountId, at, at],
        );
      } catch (error) {
        if (!(error instanceof SqliteWriterUnavailableError)) throw error;
      }
    }
    if (this.postgres.prismaPool) {
      const { rowCount } = await this.postgres.prismaPool.query({
        name: 'insert-link',
        text: `INSERT INTO "links" ("code", "url", "account_id", "clicks", "created_at", "updated_at")
          VALUES ($1, $2, $3, 0, $4, $4) ON CONFLICT ("code") DO NOTHING`,
        values: [data.code, data.url, data.accountId, now.toISOString()],
      });
      return rowCount ?? 0;
    }
    return this.prisma.$executeRaw`
      INSERT INTO "links" ("code", "url", "account_id", "clicks", "created_at", "updated_at")
      VALUES (${data.code}, ${data.url}, ${data.accountId}, 0, ${now}, ${now})
      ON CONFLICT ("code") DO NOTHING`;
  }

  /** The account's link with this code; null for unknown codes and for other owners' links. */
  async findForAccount(code: string, accountId: string): Promise<LinkRecord | null> {
    const link = await this.prisma.link.findUnique({ where: { code } });
    return link?.accountId === accountId ? link : null;
  }

  /**
   * One page of the account's links, newest first; served by the (account_id, created_at, code)
   * index. The page and the total are two independent reads, not one transaction: a link created
   * or deleted between them can show in one and not in the other (PostgreSQL's
   * default READ COMMITTED gives each statement its own snapshot anyway). Through Prisma the
   * transaction cost 15–30 % of the list's CPU: 457–524 → 668–683 lists/s on PostgreSQL and
   * 608–648 → 714–827 on SQLite, at 10 connections, measured back to back.
   */
  async listForAccount(
    accountId: string,
    limit: number,
    offset: number,
  ): Promise<{ links: LinkRecord[]; total: number }> {
    const [links, total] = await Promise.all([
      this.prisma.link.findMany({
        where: { accountId },
        orderBy: [{ createdAt: 'desc' }, { code: 'asc' }],
        take: limit,
        skip: offset,
      }),
      this.prisma.link.count({ where: { accountId } }),
    ]);
    return { links, total };
  }

  /** Changes the target of the account's link; null when the account has no such link. */
  async updateUrlForAccount(code: string, accountId: string, url: string): Promise<LinkRecord | null> {
    try {
      return await this.prisma.link.update({ where: { code, accountId }, data: { url } });
    } catch (error) {
      if (hasPrismaCode(error, RECORD_NOT_FOUND)) return null;
      throw error;
    }
  }

  /** Deletes the account's link; false when the account has no such link. */
  /** Every code of an account (for invalidating their cached redirects). */
  async codesOfAccount(accountId: string): Promise<string[]> {
    const rows = await this.prisma.link.findMany({ where: { accountId }, select: { code: true } });
    return rows.map((row) => row.code);
  }

  async deleteForAccount(code: string, accountId: string): Promise<boolean> {
    const { count } = await this.prisma.link.deleteMany({ where: { code, accountId } });
    return count > 0;
  }
}
