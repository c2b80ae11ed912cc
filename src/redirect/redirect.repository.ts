import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service.js';
// The SQL template helpers are the same runtime functions in both generated clients.
import { Prisma } from '../generated/sqlite/client.js';
import { RedirectLookup } from './redirect-lookup.js';

@Injectable()
export class RedirectRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly lookup: RedirectLookup,
  ) {}

  /**
   * One primary-key read, for every redirect the cache misses: through the driver with a prepared
   * statement (`RedirectLookup`), as the same query through Prisma costs ~90–145 µs of CPU.
   */
  findTarget(code: string): Promise<string | null> {
    return this.lookup.findTarget(code);
  }

  /**
   * Adds buffered click counts: one UPDATE statement for the whole batch (a join against a VALUES
   * list; SQLite and PostgreSQL both accept this form), so a busy second costs one statement,
   * not one per code. Raw SQL also because Prisma's update would move `updated_at`, which tells
   * when the target changed, not when it was visited. Codes deleted meanwhile match no row.
   */
  async addClicks(counts: ReadonlyArray<readonly [code: string, clicks: number]>): Promise<void> {
    if (counts.length === 0) return;
    // The CAST types the parameter for PostgreSQL, which would otherwise take it for text.
    const values = Prisma.join(counts.map(([code, clicks]) => Prisma.sql`(${code}, CAST(${clicks} AS INTEGER))`));
    await this.prisma.$executeRaw`WITH "batch" ("code", "clicks") AS (VALUES ${values})
      UPDATE "links" SET "clicks" = "links"."clicks" + "batch"."clicks"
      FROM "batch" WHERE "links"."code" = "batch"."code"`;
  }
}
