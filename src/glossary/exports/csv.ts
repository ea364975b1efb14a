import type { Term } from '../term.ts';

export const CSV_COLUMNS = ['id', 'term', 'definition', 'category', 'see_also'] as const;

/**
 * A spreadsheet reads a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return as
 * a formula (OWASP, "CSV Injection"), and anyone may write a term. Such a text cell gets a
 * leading `'`, which spreadsheets show as text; a cell that starts with `'` gets one too, so
 * `unneutralise` can always take the first one away again and restore the exact text.
 */
const FORMULA = /^[=+\-@\t\r']/;

export function neutralise(text: string): string {
  return FORMULA.test(text) ? `'${text}` : text;
}

/** The exact text of a cell `neutralise` wrote. */
export function unneutralise(cell: string): string {
  return cell.startsWith("'") && FORMULA.test(cell.slice(1)) ? cell.slice(1) : cell;
}

/** RFC 4180: a field is quoted when it holds a comma, a quote or a line break. */
function field(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** CSV, RFC 4180 (CRLF line ends), text cells neutralised; `see_also` ids joined by `;`. */
export const csv = {
  start: () => `${CSV_COLUMNS.join(',')}\r\n`,
  term: (term: Term) =>
    `${[
      String(term.id),
      field(neutralise(term.term)),
      field(neutralise(term.definition)),
      field(neutralise(term.category)),
      term.see_also.join(';'),
    ].join(',')}\r\n`,
  end: () => '',
};
