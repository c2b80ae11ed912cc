import { Injectable } from '@nestjs/common';
import type { ClickedLink } from '../clicks/clicks.repository.js';
import { PreparedReads, preparedRead } from '../database/prepared-reads.js';

/** An account's tags as `ACCOUNT_TAGS` reads them. */
export interface AccountTagRows {
  /** Each tag, its links and their clicks as the rows hold them, sorted by tag. */
  tags: Array<{ tag: string; links: number; clicks: number }>;
  /** Those of the `loggedCodes` that are the account's and tagged: their rows and tags. */
  logged: Array<{ link: ClickedLink; tags: string[] }>;
}

interface AccountTagsRow {
  /** JSON arrays: text from SQLite, already parsed by the `pg` driver. */
  tags: string | Array<[tag: string, links: number | string, clicks: number | string]>;
  logged: string | Array<[code: string, createdAt: string | number, throughBatch: number, tags: string[]]>;
}

/**
 * An account's tags with the number of its links that have each and their clicks, in one
 * statement (one snapshot, as the click analytics read): link_tags' index of the account's tags,
 * and each tagged link's row for its clicks. $2 (a JSON array) holds the codes with clicks in
 * SQLite's click log not folded yet ([] on PostgreSQL): the service adds those clicks itself, to
 * each tag of those links, which are read with their tags. On SQLite the log's codes lead (one
 * lookup each): they are the whole instance's, and reading the account's links for each cost
 * twice as much at 100k logged codes.
 */
const ACCOUNT_TAGS = preparedRead<AccountTagsRow>({
  name: 'account-tags',
  sqlite: `SELECT
      (SELECT json_group_array(json_array(tag, links, clicks)) FROM (
        SELECT t.tag, count(*) AS links, sum(l.clicks) AS clicks
        FROM link_tags t JOIN links l ON l.code = t.code WHERE t.account_id = $1
        GROUP BY t.tag ORDER BY t.tag)) AS tags,
      (SELECT json_group_array(json_array(l.code, l.created_at, l.clicks_through_batch,
          json((SELECT json_group_array(t.tag) FROM link_tags t WHERE t.code = l.code))))
        FROM json_each($2) j JOIN links l ON l.code = j.value WHERE l.account_id = $1
          AND EXISTS (SELECT 1 FROM link_tags t WHERE t.code = l.code)) AS logged`,
  postgresql: `SELECT
      (SELECT coalesce(json_agg(json_build_array(tag, links, clicks) ORDER BY tag), '[]') FROM (
        SELECT t.tag, count(*) AS links, sum(l.clicks) AS clicks
        FROM link_tags t JOIN links l ON l.code = t.code WHERE t.account_id = $1
        GROUP BY t.tag) AS s) AS tags,
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

  async accountTags(accountId: string, loggedCodes: readonly string[]): Promise<AccountTagRows> {
    const row = await this.preparedReads.first(ACCOUNT_TAGS, [accountId, JSON.stringify(loggedCodes)]);
    if (!row) throw new Error('The account tags read answered no row');
    return {
      // Counts and sums are bigint on PostgreSQL, which json_agg writes as JSON numbers; Number() either way.
      tags: jsonArray(row.tags).map(([tag, links, clicks]) => ({ tag, links: Number(links), clicks: Number(clicks) })),
      logged: jsonArray(row.logged).map(([code, createdAt, throughBatch, tags]) => ({
        link: { code, clicks: 0, createdAt: new Date(createdAt), clicksThroughBatch: Number(throughBatch) },
        tags,
      })),
    };
  }
}
