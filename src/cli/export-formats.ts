import { stringify } from 'csv-stringify/sync';
import { CSV_COLUMNS } from './read-terms-file.ts';
import type { Term } from './service-client.ts';

export const EXPORT_FORMATS = ['json', 'csv', 'md'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The same JSON array `GET /terms` gives, indented; importing it rebuilds the glossary. */
export function toJson(terms: Term[]): string {
  return `${JSON.stringify(terms, null, 2)}\n`;
}

/** RFC 4180: CRLF line ends, fields quoted when they hold a comma, quote or line break. */
export function toCsv(terms: Term[]): string {
  return stringify(
    terms.map((term) => [
      term.id,
      term.term,
      term.definition,
      term.category,
      term.see_also.join(';'),
    ]),
    {
      header: true,
      columns: [...CSV_COLUMNS],
      record_delimiter: 'windows',
      // csv-stringify quotes only the record delimiter itself; RFC 4180 wants any CR or LF quoted.
      quoted_match: /[\r\n]/,
    },
  );
}
