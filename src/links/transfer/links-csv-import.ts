import { parse, type CsvError } from 'csv-parse';
import type { Readable } from 'node:stream';
import type { LinksService } from '../links.service.js';
import { unescapeFormula } from './csv-formulas.js';

/**
 * Header names of the target URL and the code in the exports of the shorteners people move from
 * (Bitly: long_url; YOURLS: keyword, url; Shlink: shortCode, longUrl; Kutt: target), compared
 * without regard to case. Our own export's `created_at`, `clicks`, `expires_at`, `tags`,
 * `ios_url` and `android_url` come along (Shlink's `tags` too).
 */
export const URL_COLUMNS = ['url', 'long_url', 'longurl', 'target', 'original_url'];
export const CODE_COLUMNS = ['code', 'keyword', 'shortcode', 'short_code', 'custom_code'];
const URL_COLUMN_NAMES = 'url, long_url, longUrl, target, original_url';

/** Rows per `createMany` call: one batched insert each, and the memory an import holds. */
const IMPORT_BATCH = 1000;
/**
 * What separates the tags of a `tags` cell: our export's spaces, and the commas of Shlink's (and
 * of people typing lists); neither can be part of a tag.
 */
const TAG_SEPARATORS = /[\s,]+/;
/** An ISO 8601 instant as our export writes it; other shorteners' dates are left behind. */
const EXPORTED_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z$/;

/** The parser's complaints about a row, said plainly. */
const PARSE_PROBLEMS: Record<string, string> = {
  CSV_RECORD_INCONSISTENT_FIELDS_LENGTH: 'the row does not have as many fields as the header',
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is never closed',
  CSV_INVALID_CLOSING_QUOTE: 'a quote inside a field is not doubled',
  INVALID_OPENING_QUOTE: 'a quote starts in the middle of a field',
};

/** A file the import cannot read at all (nothing was imported). */
export class ImportFileError extends Error {
  override name = 'ImportFileError';
}

export interface ImportTally {
  created: number;
  skipped: number;
  invalid: number;
}

/** One row that was not imported: its line in the file and why. */
export interface ImportRowReport {
  line: number;
  outcome: 'skipped' | 'invalid';
  reason: string;
}

interface PendingRow {
  line: number;
  item: Record<string, unknown>;
}

/**
 * Imports a CSV of links into an account, streaming: a header row, then one link per row. Every
 * row is created, skipped (its code is taken) or reported invalid with its line number; a bad row
 * never stops the import. Handles a UTF-8 BOM, CRLF line ends, quoted fields with commas and
 * newlines, the quote our export puts before cells a spreadsheet would take for formulas, and
 * files of any length in constant memory (batches of 1000 rows).
 */
export async function importLinksCsv(
  links: LinksService,
  accountId: string,
  input: Readable,
  report: (row: ImportRowReport) => void,
): Promise<ImportTally> {
  const tally: ImportTally = { created: 0, skipped: 0, invalid: 0 };
  const invalid = (line: number, reason: string) => {
    tally.invalid++;
    report({ line, outcome: 'invalid', reason });
  };
  const parser = parse({ bom: true, info: true, skip_empty_lines: true, skip_records_with_error: true });
  // A record the parser cannot make sense of (an unclosed quote, a stray one): reported, skipped.
  parser.on('skip', (error: CsvError & { lines?: number }) =>
    invalid(error.lines ?? 0, PARSE_PROBLEMS[error.code] ?? error.message),
  );
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);

  let columns:
    | (Record<'url' | 'code' | 'createdAt' | 'clicks' | 'expiresAt' | 'tags', number> &
        Record<'iosUrl' | 'androidUrl' | 'passwordProtected', number>)
    | undefined;
  let batch: PendingRow[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const results = await links.createMany(
      accountId,
      batch.map((row) => row.item),
      { importing: true },
    );
    results.forEach((result, i) => {
      if ('link' in result) tally.created++;
      else if (result.error.errorName === 'code_taken') {
        tally.skipped++;
        report({ line: batch[i].line, outcome: 'skipped', reason: result.error.detail });
      } else invalid(batch[i].line, result.error.detail);
    });
    batch = [];
  };

  for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
    if (!columns) {
      const names = record.map((name) => name.trim().toLowerCase());
      const find = (candidates: string[]) => names.findIndex((name) => candidates.includes(name));
      const url = find(URL_COLUMNS);
      if (url === -1) {
        parser.destroy();
        throw new ImportFileError(
          `The CSV has no url column (one of: ${URL_COLUMN_NAMES}); its header row is: ${record.join(', ')}`,
        );
      }
      columns = {
        url,
        code: find(CODE_COLUMNS),
        createdAt: find(['created_at']),
        clicks: find(['clicks']),
        expiresAt: find(['expires_at']),
        tags: find(['tags']),
        iosUrl: find(['ios_url']),
        androidUrl: find(['android_url']),
        passwordProtected: find(['password_protected']),
      };
      continue;
    }
    // Our export's quote before a would-be formula (`'-2-3`) is not part of the value.
    const value = (index: number) => (index === -1 ? '' : unescapeFormula(record[index].trim()));
    const item: Record<string, unknown> = { url: value(columns.url) };
    if (value(columns.code) !== '') item.custom_code = value(columns.code);
    if (value(columns.expiresAt) !== '') item.expires_at = value(columns.expiresAt);
    if (EXPORTED_INSTANT.test(value(columns.createdAt))) item.created_at = value(columns.createdAt);
    if (/^\d{1,10}$/.test(value(columns.clicks))) item.clicks = Number(value(columns.clicks));
    // Tags that break the rules (or more than 10) make the row invalid, as they would a creation.
    const tags = value(columns.tags).split(TAG_SEPARATORS).filter(Boolean);
    if (tags.length > 0) item.tags = tags;
    if (value(columns.iosUrl) !== '') item.ios_url = value(columns.iosUrl);
    if (value(columns.androidUrl) !== '') item.android_url = value(columns.androidUrl);
    // Imported without its password, a protected link would open for anyone: it is left out.
    if (value(columns.passwordProtected).toLowerCase() === 'true') {
      invalid(
        info.lines,
        'the link is password-protected, and its password is not in the export (only a hash is stored): add it with the API or the dashboard and set its password',
      );
      continue;
    }
    batch.push({ line: info.lines, item });
    if (batch.length >= IMPORT_BATCH) await flush();
  }
  if (!columns) throw new ImportFileError('The CSV is empty: it needs a header row with a url column');
  await flush();
  return tally;
}
