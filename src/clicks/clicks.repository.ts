import { Injectable } from '@nestjs/common';
import { PreparedReads, preparedRead } from '../database/prepared-reads.js';

/** A link's row as the analytics read it. */
export interface ClickedLink {
  code: string;
  clicks: number;
  createdAt: Date;
  clicksThroughBatch: number;
}

export interface LinkClickRows {
  link: ClickedLink;
  days: Array<{ day: string; clicks: number; bots: number }>;
  /** Per host over the window, most clicks first (all of them when `referrerLimit` is undefined). */
  referrers: Array<{ host: string; clicks: number }>;
}

/** The row of LINK_CLICKS: dates as SQLite's ISO text or PostgreSQL's epoch milliseconds. */
interface LinkClicksRow {
  code: string;
  clicks: number;
  createdAt: string | number;
  clicksThroughBatch: number;
  /** JSON arrays: text from SQLite, already parsed by the `pg` driver. */
  days: string | Array<[day: string, clicks: number | string, bots: number | string]>;
  referrers: string | Array<[host: string, clicks: number | string]>;
}

/**
 * The link, its daily rows from day $2 on and its top $3 referrer hosts over them (all of them
 * when $3 is null), in one statement, so from one snapshot whatever a fold does meanwhile:
 * the row's count, its daily rows and the last click batch they include agree. The rows come as
 * JSON arrays of [day, clicks] and [host, clicks]: a year of days is one value to convert, not
 * 366 rows.
 */
const LINK_CLICKS = preparedRead<LinkClicksRow>({
  name: 'link-clicks',
  sqlite: `SELECT l.code, l.clicks, l.created_at AS "createdAt", l.clicks_through_batch AS "clicksThroughBatch",
      (SELECT json_group_array(json_array(day, clicks, bots)) FROM link_daily_clicks
        WHERE code = l.code AND day >= $2) AS days,
      (SELECT json_group_array(json_array(host, clicks)) FROM (
        SELECT host, sum(clicks) AS clicks FROM link_daily_referrers WHERE code = l.code AND day >= $2
        GROUP BY host ORDER BY clicks DESC, host ASC LIMIT coalesce($3, -1))) AS referrers
    FROM links l WHERE l.code = $1 AND l.account_id = $4`,
  postgresql: `SELECT l.code, l.clicks, (extract(epoch FROM l.created_at) * 1000)::float8 AS "createdAt",
      l.clicks_through_batch AS "clicksThroughBatch",
      (SELECT coalesce(json_agg(json_build_array(day, clicks, bots)), '[]') FROM link_daily_clicks
        WHERE code = l.code AND day >= $2) AS days,
      (SELECT coalesce(json_agg(json_build_array(host, clicks)), '[]') FROM (
        SELECT host, sum(clicks) AS clicks FROM link_daily_referrers WHERE code = l.code AND day >= $2
        GROUP BY host ORDER BY clicks DESC, host ASC LIMIT $3::int8) AS top) AS referrers
    FROM links l WHERE l.code = $1 AND l.account_id = $4`,
});

/** A JSON array column: text from SQLite, already parsed by the `pg` driver. */
function jsonArray<T>(value: string | T[]): T[] {
  return typeof value === 'string' ? (JSON.parse(value) as T[]) : value;
}

@Injectable()
export class ClicksRepository {
  constructor(private readonly preparedReads: PreparedReads) {}

  /**
   * The account's link `code` with its daily rows and referrer totals from `fromDay` on, or null
   * when the account has no such link.
   */
  async linkClicks(
    accountId: string,
    code: string,
    fromDay: string,
    referrerLimit: number | undefined,
  ): Promise<LinkClickRows | null> {
    const row = await this.preparedReads.first(LINK_CLICKS, [code, fromDay, referrerLimit ?? null, accountId]);
    if (!row) return null;
    return {
      link: {
        code: row.code,
        clicks: Number(row.clicks),
        createdAt: new Date(row.createdAt),
        clicksThroughBatch: Number(row.clicksThroughBatch),
      },
      // Sums are bigint on PostgreSQL, which json_agg writes as JSON numbers; Number() either way.
      days: jsonArray(row.days).map(([day, dayClicks, bots]) => ({
        day,
        clicks: Number(dayClicks),
        bots: Number(bots),
      })),
      referrers: jsonArray(row.referrers).map(([host, hostClicks]) => ({
        host,
        clicks: Number(hostClicks),
      })),
    };
  }
}
