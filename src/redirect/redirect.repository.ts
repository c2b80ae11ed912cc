import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service.js';
import { SqliteBackgroundWriter } from '../database/sqlite-background-writer.js';
// The SQL template helpers are the same runtime functions in both generated clients.
import { Prisma } from '../generated/sqlite/client.js';
import { RedirectLookup } from './redirect-lookup.js';

@Injectable()
export class RedirectRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly lookup: RedirectLookup,
    private readonly sqliteWriter: SqliteBackgroundWriter,
  ) {}

  /**
   * One primary-key read, for every redirect the cache misses: through the driver with a prepared
   * statement (`RedirectLookup`), as the same query through Prisma costs ~90–145 µs of CPU.
   */
  findTarget(code: string): Promise<string | null> {
    return this.lookup.findTarget(code);
  }

  /**
   * Adds buffered click counts, all of a batch in one transaction. Raw SQL because Prisma's
   * update would move `updated_at`, which tells when the target changed, not when it was
   * visited. Codes deleted meanwhile match no row.
   *
   * - SQLite: the rows go to the background writer's thread, in code order (neighbouring codes
   *   share B-tree pages). Over 1M links each click of a distinct code touches a page of its own;
   *   on the event loop (the driver is synchronous) a busy second's flush stalled redirects.
   * - PostgreSQL: one UPDATE joined against a VALUES list through Prisma, so a busy second costs
   *   one statement, not one per code; the driver is asynchronous.
   */
  async addClicks(counts: ReadonlyArray<readonly [code: string, clicks: number]>): Promise<void> {
    if (counts.length === 0) return;
    if (this.sqliteWriter.enabled) {
      const rows = counts.map(([code, clicks]) => [clicks, code]).sort((a, b) => (a[1] < b[1] ? -1 : 1));
      return this.sqliteWriter.runBatch('UPDATE "links" SET "clicks" = "clicks" + ? WHERE "code" = ?', rows);
    }
    // The CAST types the parameter for PostgreSQL, which would otherwise take it for text.
    const values = Prisma.join(counts.map(([code, clicks]) => Prisma.sql`(${code}, CAST(${clicks} AS INTEGER))`));
    await this.prisma.$executeRaw`WITH "batch" ("code", "clicks") AS (VALUES ${values})
      UPDATE "links" SET "clicks" = "links"."clicks" + "batch"."clicks"
      FROM "batch" WHERE "links"."code" = "batch"."code"`;
  }
}
