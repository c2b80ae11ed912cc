import { Injectable } from '@nestjs/common';
import { DirectReads, type DirectRead } from '../database/direct-reads.js';

/** A link's row as the analytics read it. */
export interface ClickedLink {
  code: string;
  clicks: number;
  createdAt: Date;
  clicksThroughBatch: number;
}

export interface LinkClickRows {
  link: ClickedLink;
  days: Array<{ day: string; clicks: number }>;
  /** Per host over the window, most clicks first (all of them when `referrerLimit` is undefined). */
  referrers: Array<{ host: string; clicks: number }>;
}

/**
 * The link, its daily rows from day $2 on and its top $3 referrer hosts over them (all of them
 * when $3 is null), in one statement, so from one snapshot whatever a fold does meanwhile:
 * the row's count, its daily rows and the last click batch they include agree. The rows come as
 * JSON arrays of [day, clicks] and [host, clicks]: a year of days is one value to convert, not
 * 366 rows. Dates as SQLite's ISO text or PostgreSQL's epoch milliseconds.
 */
const LINK_CLICKS: DirectRead = {
  name: 'link-clicks',
  sqlite: `SELECT l.code, l.clicks, l.created_at, l.clicks_through_batch,
      (SELECT json_group_array(json_array(day, clicks)) FROM link_daily_clicks
        WHERE code = l.code AND day >= $2),
      (SELECT json_group_array(json_array(host, clicks)) FROM (
        SELECT host, sum(clicks) AS clicks FROM link_daily_referrers WHERE code = l.code AND day >= $2
        GROUP BY host ORDER BY clicks DESC, host ASC LIMIT coalesce($3, -1)))
    FROM links l WHERE l.code = $1 AND l.account_id = $4`,
  postgresql: `SELECT l.code, l.clicks, (extract(epoch FROM l.created_at) * 1000)::float8, l.clicks_through_batch,
      (SELECT coalesce(json_agg(json_build_array(day, clicks)), '[]') FROM link_daily_clicks
        WHERE code = l.code AND day >= $2),
      (SELECT coalesce(json_agg(json_build_array(host, clicks)), '[]') FROM (
        SELECT host, sum(clicks) AS clicks FROM link_daily_referrers WHERE code = l.code AND day >= $2
        GROUP BY host ORDER BY clicks DESC, host ASC LIMIT $3::int8) AS top)
    FROM links l WHERE l.code = $1 AND l.account_id = $4`,
};

type LinkClicksRow = [string, number, string | number, number, string | unknown[], string | unknown[]];

/** A JSON array column: text from SQLite, already parsed by the `pg` driver. */
const jsonArray = <T>(value: string | unknown[]): T[] => (typeof value === 'string' ? JSON.parse(value) : value) as T[];

@Injectable()
export class ClicksRepository {
  constructor(private readonly directReads: DirectReads) {}

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
    const row = await this.directReads.firstRow<LinkClicksRow>(LINK_CLICKS, [
      code,
      fromDay,
      referrerLimit ?? null,
      accountId,
    ]);
    if (!row) return null;
    const [linkCode, clicks, createdAt, clicksThroughBatch, days, referrers] = row;
    return {
      link: {
        code: linkCode,
        clicks: Number(clicks),
        createdAt: new Date(createdAt),
        clicksThroughBatch: Number(clicksThroughBatch),
      },
      days: jsonArray<[string, number]>(days).map(([day, dayClicks]) => ({ day, clicks: Number(dayClicks) })),
      referrers: jsonArray<[string, number]>(referrers).map(([host, hostClicks]) => ({
        host,
        clicks: Number(hostClicks),
      })),
    };
  }
}
