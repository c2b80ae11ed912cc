/**
 * CSV injection: a spreadsheet opening the export reads a cell that starts with `=`, `+`, `-`,
 * `@`, a tab or a carriage return as a formula (a custom code may be `-2-3` or `-A1-B1`).
 *
 * We follow OWASP's "CSV Injection" page: no cell may begin with one of those six characters, and
 * a single quote before the content makes spreadsheets read it as text. Of its two ways we take
 * the first (prefix only the cells that start with one of them), not the second (quote and
 * prefix every cell), so an ordinary export stays as it was. The field separators and quotes
 * inside a cell, which the page also warns of, are csv-stringify's quoting (RFC 4180). The
 * full-width forms of `=`, `+`, `-` and `@` are treated alike, as csv-stringify's own
 * `escape_formulas` does (Apple Numbers reads them as the ASCII ones).
 *
 * A cell that really starts with `'` is prefixed too, so that `unescapeFormula` can tell the
 * added quote from one that was there: `'=x` is written `''=x` and read back as `'=x`.
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20']/u;

/** The cell as the export writes it. */
export function escapeFormula(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}

/** The cell as the export had it: `escapeFormula`'s quote removed, any other cell unchanged. */
export function unescapeFormula(cell: string): string {
  return cell.startsWith("'") && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell;
}
