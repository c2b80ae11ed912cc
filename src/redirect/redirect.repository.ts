import { Injectable } from '@nestjs/common';
import { PostgresDriver } from '../database/postgres-driver.js';
import { PrismaService } from '../database/prisma.service.js';
import { SqliteBackgroundWriter, toSqliteDateTime } from '../database/sqlite-background-writer.js';
import type { LoggedClickBatch } from '../links/logged-clicks.js';
import { RedirectLookup } from './redirect-lookup.js';

@Injectable()
export class RedirectRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly lookup: RedirectLookup,
    private readonly sqliteWriter: SqliteBackgroundWriter,
    private readonly postgres: PostgresDriver,
  ) {}

  /**
   * One primary-key read, for every redirect the cache misses: through the driver with a prepared
   * statement (`RedirectLookup`), as the same query through Prisma costs many times more CPU.
   * `cacheGeneration`: `LinkCache.generation()`, taken before the call.
   */
  findTarget(code: string, cacheGeneration: number): Promise<string | null> {
    return this.lookup.findTarget(code, cacheGeneration);
  }

  /**
   * PostgreSQL's flush: adds buffered click counts straight to `links.clicks`, all of a batch in
   * one statement (one transaction), as two array parameters (`unnest`): however many codes it
   * holds, a busy second costs one statement per transaction with the same text (a `VALUES`
   * list bound two parameters per code and changed the statement's text with every batch size).
   * Raw SQL because Prisma's update would move `updated_at`, which tells when the target changed,
   * not when it was visited. Codes deleted meanwhile match no row. Through the driver
   * (`PostgresDriver`) as a named prepared statement: over many links nearly every redirect is a
   * code of its own in the next flush, and Prisma's raw query converts every parameter across the
   * driver adapter, several times the driver's own cost per code.
   *
   * Rows are written in code order: two flushes of overlapping codes at the same moment (two
   * instances, or a flush and the shutdown flush) then lock the rows in the same order, as the
   * plan walks the batch in its order (a nested loop over the primary key, or a hash join probed
   * with the batch): one waits for the other instead of both deadlocking.
   *
   * SQLite logs its flushes instead (`logClicks`, `foldClickLog`).
   */
  async addClicks(counts: ReadonlyArray<readonly [code: string, clicks: number]>): Promise<void> {
    if (counts.length === 0) return;
    const sorted = [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const codes = sorted.map(([code]) => code);
    const clicks = sorted.map(([, added]) => added);
    await this.postgres.hotPool!.query({
      name: 'add-clicks',
      text: `UPDATE "links" SET "clicks" = "links"."clicks" + "batch"."clicks"
        FROM unnest($1::text[], $2::integer[]) AS "batch" ("code", "clicks")
        WHERE "links"."code" = "batch"."code"`,
      values: [codes, clicks],
    });
  }

  /**
   * Whether clicks go to the click log (SQLite) rather than straight into `links.clicks`: over
   * many links, a flush written into `links` costs a page write per click; appended to the log,
   * one row per flush. The log is added to the links in bulk by `foldClickLog`.
   */
  get logsClicks(): boolean {
    return this.sqliteWriter.databaseIsSqlite;
  }

  /** Appends one flush's counts to the click log; resolves with its id once committed. */
  async logClicks(counts: ReadonlyArray<readonly [code: string, clicks: number]>, closedAt: Date): Promise<number> {
    const { lastInsertRowid } = await this.sqliteWriter.runReturningRowid(
      'INSERT INTO "click_batches" ("logged_at", "counts") VALUES (?, ?)',
      [toSqliteDateTime(closedAt), JSON.stringify(counts)],
    );
    return lastInsertRowid;
  }

  /**
   * Adds the whole click log to `links.clicks` and empties it, on the background writer (see
   * its worker's `foldClicks`), spread over about `spreadMs` (0: as fast as it can); resolves
   * with the id of the last batch added (0: none).
   */
  foldClickLog(spreadMs: number): Promise<number> {
    return this.sqliteWriter.foldClicks(spreadMs);
  }

  /** A paced fold under way goes on at full speed (at shutdown). */
  hurryClickFold(): Promise<void> {
    return this.sqliteWriter.hurryFold();
  }

  /** The batches in the click log, oldest first: those a crash or stop left behind. */
  async loggedClickBatches(): Promise<LoggedClickBatch[]> {
    const rows = await this.prisma.clickBatch.findMany({ orderBy: { id: 'asc' } });
    return rows.map((row) => ({
      id: row.id,
      closedAt: row.loggedAt,
      counts: new Map(JSON.parse(row.counts) as Array<[string, number]>),
    }));
  }
}
