import { Logger } from '@nestjs/common';
import type { PostgresPool } from '../database/postgres-pools.js';
import { ClickSink } from './click-sink.js';
import { splitLabelKey, type ClickTally, type CodeTally } from './click-tally.js';

/** Codes written per statement: keeps one flush of a busy minute from becoming one huge statement. */
export const CLICK_FLUSH_BATCH_SIZE = 500;

/**
 * PostgreSQL: each flush goes straight into `links.clicks` and the daily rows, as several
 * instances share the database and each must see the others' counts (they add up: every write
 * adds to what is there). On the hot pool, beside the redirect lookups.
 */
export class PostgresClickSink extends ClickSink {
  private readonly logger = new Logger(PostgresClickSink.name);

  constructor(private readonly pool: PostgresPool) {
    super();
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  afterFlush(): Promise<void> {
    return Promise.resolve();
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  async write(batch: ClickTally): Promise<ClickTally> {
    const codes = [...batch.keys()].sort();
    for (let start = 0; start < codes.length; start += CLICK_FLUSH_BATCH_SIZE) {
      const chunk = codes.slice(start, start + CLICK_FLUSH_BATCH_SIZE);
      try {
        await this.addClicks(chunk.map((code) => [code, batch.get(code)!] as const));
      } catch (error) {
        // Each chunk is one statement (one transaction): a failed chunk wrote nothing, so all of
        // it and the chunks not yet tried go back to be retried.
        this.logger.warn(`Could not write click counts, will retry: ${String(error)}`);
        return new Map(codes.slice(start).map((code) => [code, batch.get(code)!]));
      }
    }
    return new Map();
  }

  /**
   * One statement (so one transaction) per chunk: the all-time counts, then the daily and
   * referrer rows of the codes whose link still exists (a deleted link's clicks go nowhere; the
   * `UPDATE` holds its row, so a delete cannot slip in between), and their visitor labels; the
   * referrer and label rows also summed per month, and the accounts' days (a month's or an
   * account's rows are grouped first: one statement may not upsert the same row twice). Arrays as parameters (`unnest`):
   * the statement's text is the same whatever the batch holds, so it is prepared once. Through
   * the driver rather than Prisma, whose parameter conversion costs several times more CPU per
   * code. Raw SQL because Prisma's update would move `updated_at`, which tells when the target
   * changed, not when it was visited.
   *
   * Rows are written in key order: two flushes of overlapping codes at the same moment (two
   * instances, or a flush and the shutdown flush) then lock the rows in the same order, and one
   * waits for the other instead of both deadlocking.
   */
  async addClicks(chunk: ReadonlyArray<readonly [code: string, days: CodeTally]>): Promise<void> {
    if (chunk.length === 0) return;
    const sorted = [...chunk].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const linkCodes: string[] = [];
    const linkClicks: number[] = [];
    const dayCodes: string[] = [];
    const days: string[] = [];
    const dayClicks: number[] = [];
    const dayBots: number[] = [];
    const hostCodes: string[] = [];
    const hostDays: string[] = [];
    const hosts: string[] = [];
    const hostClicks: number[] = [];
    const labelCodes: string[] = [];
    const labelDays: string[] = [];
    const dimensions: string[] = [];
    const labels: string[] = [];
    const labelClicks: number[] = [];
    for (const [code, tallies] of sorted) {
      let total = 0;
      for (const day of [...tallies.keys()].sort()) {
        const tally = tallies.get(day)!;
        total += tally.clicks;
        dayCodes.push(code);
        days.push(day);
        dayClicks.push(tally.clicks);
        dayBots.push(tally.bots);
        for (const host of [...tally.referrers.keys()].sort()) {
          hostCodes.push(code);
          hostDays.push(day);
          hosts.push(host);
          hostClicks.push(tally.referrers.get(host)!);
        }
        for (const key of [...tally.labels.keys()].sort()) {
          const [dimension, label] = splitLabelKey(key);
          labelCodes.push(code);
          labelDays.push(day);
          dimensions.push(dimension);
          labels.push(label);
          labelClicks.push(tally.labels.get(key)!);
        }
      }
      linkCodes.push(code);
      linkClicks.push(total);
    }
    await this.pool.query({
      name: 'add-clicks-with-accounts',
      text: `WITH "added" AS (
          UPDATE "links" SET "clicks" = "links"."clicks" + "batch"."clicks"
          FROM unnest($1::text[], $2::integer[]) AS "batch" ("code", "clicks")
          WHERE "links"."code" = "batch"."code"
          RETURNING "links"."code", "links"."account_id"
        ), "owned" AS (
          SELECT "code", "account_id" FROM "added" WHERE "account_id" IS NOT NULL
        ), "accountDays" AS (
          INSERT INTO "account_daily_clicks" ("account_id", "day", "clicks", "bots")
          SELECT "o"."account_id", "d"."day", sum("d"."clicks"), sum("d"."bots")
          FROM unnest($3::text[], $4::text[], $5::integer[], $10::integer[]) AS "d" ("code", "day", "clicks", "bots")
          JOIN "owned" "o" ON "o"."code" = "d"."code"
          GROUP BY 1, 2
          ORDER BY 1, 2
          ON CONFLICT ("account_id", "day") DO UPDATE SET "clicks" = "account_daily_clicks"."clicks" + EXCLUDED."clicks",
            "bots" = "account_daily_clicks"."bots" + EXCLUDED."bots"
        ), "accountLinks" AS (
          INSERT INTO "account_daily_links" ("account_id", "day", "code", "clicks")
          SELECT "o"."account_id", "d"."day", "d"."code", "d"."clicks"
          FROM unnest($3::text[], $4::text[], $5::integer[]) AS "d" ("code", "day", "clicks")
          JOIN "owned" "o" ON "o"."code" = "d"."code"
          ORDER BY 1, 2, 3
          ON CONFLICT ("account_id", "day", "code") DO UPDATE SET "clicks" = "account_daily_links"."clicks" + EXCLUDED."clicks"
        ), "accountCountries" AS (
          INSERT INTO "account_daily_countries" ("account_id", "day", "country", "clicks")
          SELECT "o"."account_id", "l"."day", "l"."label", sum("l"."clicks")
          FROM unnest($11::text[], $12::text[], $13::text[], $14::text[], $15::integer[])
            AS "l" ("code", "day", "dimension", "label", "clicks")
          JOIN "owned" "o" ON "o"."code" = "l"."code"
          WHERE "l"."dimension" = 'country'
          GROUP BY 1, 2, 3
          ORDER BY 1, 2, 3
          ON CONFLICT ("account_id", "day", "country") DO UPDATE SET "clicks" = "account_daily_countries"."clicks" + EXCLUDED."clicks"
        ), "accountReferrers" AS (
          INSERT INTO "account_daily_referrers" ("account_id", "day", "host", "clicks")
          SELECT "o"."account_id", "r"."day", "r"."host", sum("r"."clicks")
          FROM unnest($6::text[], $7::text[], $8::text[], $9::integer[]) AS "r" ("code", "day", "host", "clicks")
          JOIN "owned" "o" ON "o"."code" = "r"."code"
          GROUP BY 1, 2, 3
          ORDER BY 1, 2, 3
          ON CONFLICT ("account_id", "day", "host") DO UPDATE SET "clicks" = "account_daily_referrers"."clicks" + EXCLUDED."clicks"
        ), "daily" AS (
          INSERT INTO "link_daily_clicks" ("code", "day", "clicks", "bots")
          SELECT "d"."code", "d"."day", "d"."clicks", "d"."bots"
          FROM unnest($3::text[], $4::text[], $5::integer[], $10::integer[]) WITH ORDINALITY AS "d" ("code", "day", "clicks", "bots", "n")
          WHERE "d"."code" IN (SELECT "code" FROM "added")
          ORDER BY "d"."n"
          ON CONFLICT ("code", "day") DO UPDATE SET "clicks" = "link_daily_clicks"."clicks" + EXCLUDED."clicks",
            "bots" = "link_daily_clicks"."bots" + EXCLUDED."bots"
        ), "labelled" AS (
          INSERT INTO "link_daily_labels" ("code", "day", "dimension", "label", "clicks")
          SELECT "l"."code", "l"."day", "l"."dimension", "l"."label", "l"."clicks"
          FROM unnest($11::text[], $12::text[], $13::text[], $14::text[], $15::integer[]) WITH ORDINALITY
            AS "l" ("code", "day", "dimension", "label", "clicks", "n")
          WHERE "l"."code" IN (SELECT "code" FROM "added")
          ORDER BY "l"."n"
          ON CONFLICT ("code", "day", "dimension", "label") DO UPDATE SET "clicks" = "link_daily_labels"."clicks" + EXCLUDED."clicks"
        ), "monthlyLabels" AS (
          INSERT INTO "link_monthly_labels" ("code", "month", "dimension", "label", "clicks")
          SELECT "l"."code", substr("l"."day", 1, 7), "l"."dimension", "l"."label", sum("l"."clicks")
          FROM unnest($11::text[], $12::text[], $13::text[], $14::text[], $15::integer[])
            AS "l" ("code", "day", "dimension", "label", "clicks")
          WHERE "l"."code" IN (SELECT "code" FROM "added")
          GROUP BY 1, 2, 3, 4
          ORDER BY 1, 2, 3, 4
          ON CONFLICT ("code", "month", "dimension", "label") DO UPDATE SET "clicks" = "link_monthly_labels"."clicks" + EXCLUDED."clicks"
        ), "monthlyReferrers" AS (
          INSERT INTO "link_monthly_referrers" ("code", "month", "host", "clicks")
          SELECT "r"."code", substr("r"."day", 1, 7), "r"."host", sum("r"."clicks")
          FROM unnest($6::text[], $7::text[], $8::text[], $9::integer[]) AS "r" ("code", "day", "host", "clicks")
          WHERE "r"."code" IN (SELECT "code" FROM "added")
          GROUP BY 1, 2, 3
          ORDER BY 1, 2, 3
          ON CONFLICT ("code", "month", "host") DO UPDATE SET "clicks" = "link_monthly_referrers"."clicks" + EXCLUDED."clicks"
        )
        INSERT INTO "link_daily_referrers" ("code", "day", "host", "clicks")
        SELECT "r"."code", "r"."day", "r"."host", "r"."clicks"
        FROM unnest($6::text[], $7::text[], $8::text[], $9::integer[]) WITH ORDINALITY AS "r" ("code", "day", "host", "clicks", "n")
        WHERE "r"."code" IN (SELECT "code" FROM "added")
        ORDER BY "r"."n"
        ON CONFLICT ("code", "day", "host") DO UPDATE SET "clicks" = "link_daily_referrers"."clicks" + EXCLUDED."clicks"`,
      values: [
        linkCodes,
        linkClicks,
        dayCodes,
        days,
        dayClicks,
        hostCodes,
        hostDays,
        hosts,
        hostClicks,
        dayBots,
        labelCodes,
        labelDays,
        dimensions,
        labels,
        labelClicks,
      ],
    });
  }
}
