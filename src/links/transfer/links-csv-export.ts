import { stringify } from 'csv-stringify';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { LinksService } from '../links.service.js';
import { escapeFormula } from './csv-formulas.js';

/**
 * The export's columns: what `shortlink links import` reads back. `tags` holds a link's tags
 * separated by single spaces (a tag has none), empty for none; `ios_url` and `android_url` are
 * empty when unset. `password_protected` is `true` or `false`: a password is stored only as a
 * hash, which is not exported, so the import refuses a protected link's row rather than make it
 * open to anyone.
 */
export const EXPORT_COLUMNS = [
  'code',
  'url',
  'created_at',
  'clicks',
  'expires_at',
  'tags',
  'ios_url',
  'android_url',
  'password_protected',
];

/**
 * Writes an account's links as CSV (header row, then one link per row, oldest first), streaming
 * page by page so an account of any size is exported in constant memory. A text cell that a
 * spreadsheet would take for a formula is prefixed with `'` (`escapeFormula`); the import removes it.
 */
export async function exportLinksCsv(links: LinksService, accountId: string, output: Writable): Promise<number> {
  let rows = 0;
  async function* records() {
    for await (const page of links.pagesForExport(accountId)) {
      for (const link of page) {
        rows++;
        yield [
          link.code,
          link.url,
          link.created_at,
          link.clicks,
          link.expires_at ?? '',
          link.tags.join(' '),
          link.ios_url ?? '',
          link.android_url ?? '',
          String(link.password_protected),
        ];
      }
    }
  }
  const csv = stringify({
    header: true,
    columns: EXPORT_COLUMNS,
    record_delimiter: 'unix',
    cast: { string: escapeFormula },
  });
  await pipeline(records(), csv, output, { end: false });
  return rows;
}
