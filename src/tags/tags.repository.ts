import { Injectable } from '@nestjs/common';
import type { ClickedLink } from '../clicks/clicks.repository.js';
import { PreparedReads, preparedRead } from '../database/prepared-reads.js';

/** An account's tags as `ACCOUNT_TAGS` reads them. */
export interface AccountTagRows {
  /** How many tags the account's links have in all. */
  total: number;
  /** Each tag of the page, its links and their clicks as the rows hold them, sorted by tag. */
  tags: Array<{ tag: string; links: number; clicks: number }>;
  /** Those of the `loggedCodes` that are the account's and tagged: their rows and tags. */
  logged: Array<{ link: ClickedLink; tags: string[] }>;
}

interface AccountTagsRow {
  /** bigint (a string) on PostgreSQL. */
  total: number | string;
  /** JSON arrays: text from SQLite, already parsed by the `pg` driver. */
  tags: string | Array<[tag: string, links: number | string, clicks: number | string]>;
  logged: string | Array<[code: string, createdAt: string | number, throughBatch: number, tags: string[]]>;
}

/**
 * A page of an account's tags ($3 of them after the first $4, in code-point order on both
 * databases: `COLLATE "C"` on PostgreSQL, whose database collation may put `a-b` after `ab`) with
 * the number of its links that have each and their clicks, and how many tags there are, in one
 * statement (one snapshot, as the click analytics read): account_tags (a row per tag, with its
 * link count, kept by triggers) for the page and the total, link_tags' index for the page's
 * tags' links, and each such link's row for its clicks. A page costs its own tags' links, not
 * every tagged link of the account. $2 (a JSON array) holds the codes with clicks in
 * SQLite's click log not folded yet ([] on PostgreSQL): the service adds those clicks itself, to
 * each tag of those links, which are read with their tags. On SQLite the log's codes lead (one
 * lookup each): they are the whole instance's, and reading the account's links for each cost
 * twice as much at 100k logged codes.
 */
const ACCOUNT_TAGS = preparedRead<AccountTagsRow>({
  name: 'account-tags',
  sqlite: `SELECT
      (SELECT count(*) FROM account_tags WHERE account_id = $1) AS total,
      (SELECT json_group_array(json_array(tag, links, clicks)) FROM (
        SELECT a.tag, a.link_count AS links,
          (SELECT coalesce(sum(l.clicks), 0) FROM link_tags t JOIN links l ON l.code = t.code
            WHERE t.account_id = $1 AND t.tag = a.tag) AS clicks
        FROM account_tags a WHERE a.account_id = $1
        ORDER BY a.tag LIMIT $3 OFFSET $4)) AS tags,
      (SELECT json_group_array(json_array(l.code, l.created_at, l.clicks_through_batch,
          json((SELECT json_group_array(t.tag) FROM link_tags t WHERE t.code = l.code))))
        FROM json_each($2) j JOIN links l ON l.code = j.value WHERE l.account_id = $1
          AND EXISTS (SELECT 1 FROM link_tags t WHERE t.code = l.code)) AS logged`,
  postgresql: `SELECT
      (SELECT count(*) FROM account_tags WHERE account_id = $1) AS total,
      (SELECT coalesce(json_agg(json_build_array(tag, links, clicks) ORDER BY tag COLLATE "C"), '[]') FROM (
        SELECT a.tag, a.link_count AS links,
          (SELECT coalesce(sum(l.clicks), 0) FROM link_tags t JOIN links l ON l.code = t.code
            WHERE t.account_id = $1 AND t.tag = a.tag) AS clicks
        FROM account_tags a WHERE a.account_id = $1
        ORDER BY a.tag COLLATE "C" LIMIT $3 OFFSET $4) AS s) AS tags,
      (SELECT coalesce(json_agg(json_build_array(l.code, (extract(epoch FROM l.created_at) * 1000)::float8,
          l.clicks_through_batch, ARRAY(SELECT t.tag FROM link_tags t WHERE t.code = l.code))), '[]')
        FROM links l WHERE l.account_id = $1 AND l.code IN (SELECT jsonb_array_elements_text($2::jsonb))
          AND EXISTS (SELECT 1 FROM link_tags t WHERE t.code = l.code)) AS logged`,
});

/** A JSON array column: text from SQLite, already parsed by the `pg` driver. */
function jsonArray<T>(value: string | T[]): T[] {
  return typeof value === 'string' ? (JSON.parse(value) as T[]) : value;
}

/** Reads of the tags of an account's links (they are written with the links: LinksRepository). */
@Injectable()
export class TagsRepository {
  constructor(private readonly preparedReads: PreparedReads) {}

  /** A page of the account's tags (`limit` after the first `offset`, in tag order), and their total. */
  async accountTags(
    accountId: string,
    loggedCodes: readonly string[],
    limit: number,
    offset: number,
  ): Promise<AccountTagRows> {
    const row = await this.preparedReads.first(ACCOUNT_TAGS, [accountId, JSON.stringify(loggedCodes), limit, offset]);
    if (!row) throw new Error('The account tags read answered no row');
    return {
      total: Number(row.total),
      // Counts and sums are bigint on PostgreSQL, which json_agg writes as JSON numbers; Number() either way.
      tags: jsonArray(row.tags).map(([tag, links, clicks]) => ({ tag, links: Number(links), clicks: Number(clicks) })),
      logged: jsonArray(row.logged).map(([code, createdAt, throughBatch, tags]) => ({
        link: { code, clicks: 0, createdAt: new Date(createdAt), clicksThroughBatch: Number(throughBatch) },
        tags,
      })),
    };
  }
}
