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
  /** Per visitor label over the window, in no order (few: each dimension's vocabulary is fixed). */
  labels: LabelClicks[];
}

/** People's clicks with one visitor label over a window. */
export interface LabelClicks {
  dimension: string;
  label: string;
  clicks: number;
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
  labels: string | Array<[dimension: string, label: string, clicks: number | string]>;
}

/**
 * The link, its daily rows from day $2 on, its top $3 referrer hosts over them (all of them
 * when $3 is null) and its visitor labels' totals over them, in one statement (hosts and labels
 * by day from $2 to before $5, the window's first, partial month, and by month from month $6 on:
 * see `monthSplit`), so from one snapshot whatever a fold does meanwhile:
 * the row's count, its daily rows and the last click batch they include agree. The rows come as
 * JSON arrays of [day, clicks] and [host, clicks]: a year of days is one value to convert, not
 * 366 rows.
 */
const LINK_CLICKS = preparedRead<LinkClicksRow>({
  name: 'link-clicks-by-month',
  sqlite: `SELECT l.code, l.clicks, l.created_at AS "createdAt", l.clicks_through_batch AS "clicksThroughBatch",
      (SELECT json_group_array(json_array(day, clicks, bots)) FROM link_daily_clicks
        WHERE code = l.code AND day >= $2) AS days,
      (SELECT json_group_array(json_array(host, clicks)) FROM (
        SELECT host, sum(clicks) AS clicks FROM (
          SELECT host, clicks FROM link_daily_referrers WHERE code = l.code AND day >= $2 AND day < $5
          UNION ALL
          SELECT host, clicks FROM link_monthly_referrers WHERE code = l.code AND month >= $6)
        GROUP BY host ORDER BY clicks DESC, host ASC LIMIT coalesce($3, -1))) AS referrers,
      (SELECT json_group_array(json_array(dimension, label, clicks)) FROM (
        SELECT dimension, label, sum(clicks) AS clicks FROM (
          SELECT dimension, label, clicks FROM link_daily_labels WHERE code = l.code AND day >= $2 AND day < $5
          UNION ALL
          SELECT dimension, label, clicks FROM link_monthly_labels WHERE code = l.code AND month >= $6)
        GROUP BY dimension, label)) AS labels
    FROM links l WHERE l.code = $1 AND l.account_id = $4`,
  postgresql: `SELECT l.code, l.clicks, (extract(epoch FROM l.created_at) * 1000)::float8 AS "createdAt",
      l.clicks_through_batch AS "clicksThroughBatch",
      (SELECT coalesce(json_agg(json_build_array(day, clicks, bots)), '[]') FROM link_daily_clicks
        WHERE code = l.code AND day >= $2) AS days,
      (SELECT coalesce(json_agg(json_build_array(host, clicks)), '[]') FROM (
        SELECT host, sum(clicks) AS clicks FROM (
          SELECT host, clicks FROM link_daily_referrers WHERE code = l.code AND day >= $2 AND day < $5
          UNION ALL
          SELECT host, clicks FROM link_monthly_referrers WHERE code = l.code AND month >= $6) AS rows
        GROUP BY host ORDER BY clicks DESC, host ASC LIMIT $3::int8) AS top) AS referrers,
      (SELECT coalesce(json_agg(json_build_array(dimension, label, clicks)), '[]') FROM (
        SELECT dimension, label, sum(clicks) AS clicks FROM (
          SELECT dimension, label, clicks FROM link_daily_labels WHERE code = l.code AND day >= $2 AND day < $5
          UNION ALL
          SELECT dimension, label, clicks FROM link_monthly_labels WHERE code = l.code AND month >= $6) AS rows
        GROUP BY dimension, label) AS labelled) AS labels
    FROM links l WHERE l.code = $1 AND l.account_id = $4`,
});

/** An account's clicks over a window, as `ACCOUNT_CLICKS` reads them. */
export interface AccountClickRows {
  /** The days of the window with clicks on any of the account's links (deleted ones' too). */
  days: Array<{ day: string; clicks: number; bots: number }>;
  /** The links with most clicks over the window, most first, leaving out the `loggedCodes`. */
  links: Array<{ code: string; clicks: number }>;
  /** Those of the `loggedCodes` that are the account's: their rows and clicks over the window. */
  logged: Array<{ link: ClickedLink; clicks: number }>;
  /** People's clicks by country over the window (every country: the vocabulary is fixed). */
  countries: Array<{ country: string; clicks: number }>;
  /** The referrer hosts with most people's clicks over the window, leaving out the `loggedHosts`. */
  referrers: Array<{ host: string; clicks: number }>;
  /** The `loggedHosts`' people's clicks over the window. */
  loggedReferrers: Array<{ host: string; clicks: number }>;
}

interface AccountClicksRow {
  days: string | Array<[day: string, clicks: number | string, bots: number | string]>;
  links: string | Array<[code: string, clicks: number | string]>;
  logged: string | Array<[code: string, createdAt: string | number, throughBatch: number, clicks: number | string]>;
  countries: string | Array<[country: string, clicks: number | string]>;
  referrers: string | Array<[host: string, clicks: number | string]>;
  loggedReferrers: string | Array<[host: string, clicks: number | string]>;
}

/**
 * An account's clicks from day $2 on, in one statement (one snapshot, as LINK_CLICKS), from the
 * account's daily rows (written with the links' by the click flush): per day, the top $5 links
 * and referrer hosts, every country. $3 and $4 (JSON arrays) are the codes and hosts with clicks
 * in SQLite's click log not folded yet ([] on PostgreSQL): the service adds those clicks itself,
 * so they are read apart (their rows and totals), and left out of the top lists, which then hold
 * every other candidate for the real top.
 */
const ACCOUNT_CLICKS = preparedRead<AccountClicksRow>({
  name: 'account-clicks-by-account',
  // $3 lists every code in the log, the whole instance's: the account's are picked out once
  // (one lookup per logged code, the JSON parsed once), and the top list leaves out only those.
  // Reading the account's links for each logged code and leaving out all of them cost 300 ms a
  // call after 100k links were clicked, against 100 (and nothing when the log is empty).
  sqlite: `WITH mine AS MATERIALIZED (
      SELECT l.code, l.created_at, l.clicks_through_batch
      FROM json_each($3) j JOIN links l ON l.code = j.value WHERE l.account_id = $1)
    SELECT
      (SELECT json_group_array(json_array(day, clicks, bots)) FROM account_daily_clicks
        WHERE account_id = $1 AND day >= $2) AS days,
      (SELECT json_group_array(json_array(code, clicks)) FROM (
        SELECT code, sum(clicks) AS clicks FROM account_daily_links
        WHERE account_id = $1 AND day >= $2 AND code NOT IN (SELECT code FROM mine)
        GROUP BY code ORDER BY clicks DESC, code ASC LIMIT $5)) AS links,
      (SELECT json_group_array(json_array(m.code, m.created_at, m.clicks_through_batch,
          (SELECT coalesce(sum(clicks), 0) FROM link_daily_clicks WHERE code = m.code AND day >= $2)))
        FROM mine m) AS logged,
      (SELECT json_group_array(json_array(country, clicks)) FROM (
        SELECT country, sum(clicks) AS clicks FROM account_daily_countries
        WHERE account_id = $1 AND day >= $2 GROUP BY country)) AS countries,
      (SELECT json_group_array(json_array(host, clicks)) FROM (
        SELECT host, sum(clicks) AS clicks FROM account_daily_referrers
        WHERE account_id = $1 AND day >= $2 AND host NOT IN (SELECT value FROM json_each($4))
        GROUP BY host ORDER BY clicks DESC, host ASC LIMIT $5)) AS referrers,
      (SELECT json_group_array(json_array(host, clicks)) FROM (
        SELECT host, sum(clicks) AS clicks FROM account_daily_referrers
        WHERE account_id = $1 AND day >= $2 AND host IN (SELECT value FROM json_each($4))
        GROUP BY host)) AS "loggedReferrers"`,
  postgresql: `SELECT
      (SELECT coalesce(json_agg(json_build_array(day, clicks, bots)), '[]') FROM account_daily_clicks
        WHERE account_id = $1 AND day >= $2) AS days,
      (SELECT coalesce(json_agg(json_build_array(code, clicks)), '[]') FROM (
        SELECT code, sum(clicks) AS clicks FROM account_daily_links
        WHERE account_id = $1 AND day >= $2 AND code NOT IN (SELECT jsonb_array_elements_text($3::jsonb))
        GROUP BY code ORDER BY clicks DESC, code ASC LIMIT $5::int8) AS t) AS links,
      (SELECT coalesce(json_agg(json_build_array(l.code, (extract(epoch FROM l.created_at) * 1000)::float8,
          l.clicks_through_batch,
          (SELECT coalesce(sum(clicks), 0) FROM link_daily_clicks WHERE code = l.code AND day >= $2))), '[]')
        FROM links l WHERE l.account_id = $1 AND l.code IN (SELECT jsonb_array_elements_text($3::jsonb))) AS logged,
      (SELECT coalesce(json_agg(json_build_array(country, clicks)), '[]') FROM (
        SELECT country, sum(clicks) AS clicks FROM account_daily_countries
        WHERE account_id = $1 AND day >= $2 GROUP BY country) AS t) AS countries,
      (SELECT coalesce(json_agg(json_build_array(host, clicks)), '[]') FROM (
        SELECT host, sum(clicks) AS clicks FROM account_daily_referrers
        WHERE account_id = $1 AND day >= $2 AND host NOT IN (SELECT jsonb_array_elements_text($4::jsonb))
        GROUP BY host ORDER BY clicks DESC, host ASC LIMIT $5::int8) AS t) AS referrers,
      (SELECT coalesce(json_agg(json_build_array(host, clicks)), '[]') FROM (
        SELECT host, sum(clicks) AS clicks FROM account_daily_referrers
        WHERE account_id = $1 AND day >= $2 AND host IN (SELECT jsonb_array_elements_text($4::jsonb))
        GROUP BY host) AS t) AS "loggedReferrers"`,
});

/**
 * The codes of the account's links (a JSON array) when it has fewer than $2 links, else null:
 * read through the account's (account_id, created_at, code) index alone.
 */
const ACCOUNT_CODES_IF_FEWER = preparedRead<{ codes: string | string[] | null }>({
  name: 'account-codes-if-fewer',
  sqlite: `SELECT CASE WHEN (SELECT link_count FROM accounts WHERE id = $1) < $2
      THEN (SELECT json_group_array(code) FROM links WHERE account_id = $1) END AS codes`,
  postgresql: `SELECT CASE WHEN (SELECT link_count FROM accounts WHERE id = $1) < $2::int8
      THEN (SELECT coalesce(json_agg(code), '[]') FROM links WHERE account_id = $1) END AS codes`,
});

/**
 * Where a window starting on `fromDay` (`YYYY-MM-DD`) leaves the daily rows for the monthly ones:
 * the daily rows cover `fromDay` up to before `day`, the monthly rows `month` and after. A
 * window starting on the 1st reads whole months only; otherwise its first month by day up to
 * the 1st of the next. The month of today is whole too: nothing is counted after today.
 */
export function monthSplit(fromDay: string): { day: string; month: string } {
  if (fromDay.endsWith('-01')) return { day: fromDay, month: fromDay.slice(0, 7) };
  const year = Number(fromDay.slice(0, 4));
  const month = Number(fromDay.slice(5, 7));
  const next = month === 12 ? `${year + 1}-01` : `${year}-${String(month + 1).padStart(2, '0')}`;
  return { day: `${next}-01`, month: next };
}

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
    const split = monthSplit(fromDay);
    const row = await this.preparedReads.first(LINK_CLICKS, [
      code,
      fromDay,
      referrerLimit ?? null,
      accountId,
      split.day,
      split.month,
    ]);
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
      labels: jsonArray(row.labels).map(([dimension, label, labelClicks]) => ({
        dimension,
        label,
        clicks: Number(labelClicks),
      })),
    };
  }
  /**
   * The codes of the account's links, when it has fewer than `limit`; null when it has as many
   * or more (or there is no such account).
   */
  async accountCodesIfFewer(accountId: string, limit: number): Promise<string[] | null> {
    const row = await this.preparedReads.first(ACCOUNT_CODES_IF_FEWER, [accountId, limit]);
    return row?.codes === null || row?.codes === undefined ? null : jsonArray(row.codes);
  }

  /**
   * The account's clicks from `fromDay` on (see ACCOUNT_CLICKS): `top` links and hosts, leaving
   * out `loggedCodes` and `loggedHosts`, which are read apart.
   */
  async accountClicks(
    accountId: string,
    fromDay: string,
    loggedCodes: readonly string[],
    loggedHosts: readonly string[],
    top: number,
  ): Promise<AccountClickRows> {
    const row = await this.preparedReads.first(ACCOUNT_CLICKS, [
      accountId,
      fromDay,
      JSON.stringify(loggedCodes),
      JSON.stringify(loggedHosts),
      top,
    ]);
    if (!row) throw new Error('The account clicks read answered no row');
    const counts = <K extends string>(value: string | Array<[string, number | string]>, key: K) =>
      jsonArray(value).map(
        ([name, clicks]) =>
          ({ [key]: name, clicks: Number(clicks) }) as Record<K, string> & {
            clicks: number;
          },
      );
    return {
      days: jsonArray(row.days).map(([day, clicks, bots]) => ({ day, clicks: Number(clicks), bots: Number(bots) })),
      links: counts(row.links, 'code'),
      logged: jsonArray(row.logged).map(([code, createdAt, throughBatch, clicks]) => ({
        link: { code, clicks: 0, createdAt: new Date(createdAt), clicksThroughBatch: Number(throughBatch) },
        clicks: Number(clicks),
      })),
      countries: counts(row.countries, 'country'),
      referrers: counts(row.referrers, 'host'),
      loggedReferrers: counts(row.loggedReferrers, 'host'),
    };
  }
}
