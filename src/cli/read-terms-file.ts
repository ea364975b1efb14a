import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { CSV_COLUMNS, namesFromCell, unneutralise } from '../glossary/exports/csv.ts';
import { CliError } from './cli-error.ts';
import { csvRecordLines, jsonPosition } from './file-places.ts';

export type FileFormat = 'json' | 'csv';

/** The items of a terms file, and where each one is in it. */
export interface TermsFile {
  items: unknown[];
  /**
   * Where item `index` is, for a message: `line 7` in CSV (the physical line its record starts
   * on, 1-based, the header is line 1), `item 3` in JSON (its index in the array, from 0).
   */
  where(index: number): string;
  /** `line 7` in CSV, `index 3` in JSON, as a field of `--json` output. */
  place(index: number): { line: number } | { index: number };
}

/** `see_also`, `aliases` and `avoid` may be left out: a five-column (or four) file imports. */
const OPTIONAL_COLUMNS: readonly string[] = ['see_also', 'aliases', 'avoid'];
const REQUIRED_COLUMNS = CSV_COLUMNS.filter((column) => !OPTIONAL_COLUMNS.includes(column));

/**
 * The terms of a JSON or CSV file, as the items of a bulk request. Values are converted only
 * as far as the format needs (CSV has no numbers or lists); judging them is the service's job,
 * so a bad item comes back as a rejected item with the service's reason, not as a bad file.
 * A file that is no terms file at all (empty, not JSON, not CSV, a CSV with another separator)
 * is a CliError: one line, exit status 1.
 */
export function readTermsFile(file: string, format?: FileFormat): TermsFile {
  const text = readText(file).replace(/^\uFEFF/, '');
  if (text.trim() === '') throw new CliError(`${file} is empty: there are no terms to import`);
  const chosen = format ?? guessFormat(file, text);
  return chosen === 'json' ? fromJson(file, text) : fromCsv(file, text);
}

function readText(file: string): string {
  try {
    // `-` is standard input, so an export can be piped straight into an import.
    return fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory' : message;
    throw new CliError(`cannot read ${file}: ${reason}`);
  }
}

function guessFormat(file: string, text: string): FileFormat {
  const extension = path.extname(file).toLowerCase();
  if (extension === '.json') return 'json';
  if (extension === '.csv') return 'csv';
  return text.trimStart().startsWith('[') ? 'json' : 'csv';
}

function fromJson(file: string, text: string): TermsFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const { line, column, reason } = jsonPosition(text, (error as Error).message);
    throw new CliError(`${file} is not valid JSON at line ${line}, column ${column}: ${reason}`);
  }
  if (!Array.isArray(parsed)) throw new CliError(`${file} must hold a JSON array of terms`);
  return { items: parsed, where: (index) => `item ${index}`, place: (index) => ({ index }) };
}

function fromCsv(file: string, text: string): TermsFile {
  let rows: Record<string, string>[];
  try {
    rows = parse(text, {
      columns: (header: string[]) => checkHeader(file, header),
      skip_empty_lines: true,
    });
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`${file} is not valid CSV: ${withRecordLine(error as Error, text)}`);
  }
  // The header's line is the first; a record's line is where it starts, so a multi-line
  // quoted definition before it does not shift it. Should the two readings ever disagree on
  // how many records there are, the item's index is the place that cannot be wrong.
  const starts = csvRecordLines(text).slice(1);
  const lines = starts.length === rows.length ? starts : undefined;
  const items = rows.map(itemOfRow);
  return lines
    ? {
        items,
        where: (index) => `line ${lines[index]}`,
        place: (index) => ({ line: lines[index] as number }),
      }
    : { items, where: (index) => `item ${index}`, place: (index) => ({ index }) };
}

/**
 * csv-parse's message with the line its failing record starts on, counted as a rejected
 * record's line is: the parser counts a CRLF inside quotes as two lines, so after a multi-line
 * value in a CRLF file (as spreadsheets and `glossary export` write them) its number was late.
 */
function withRecordLine(error: Error & { records?: unknown }, text: string): string {
  const { records } = error;
  const line = typeof records === 'number' ? csvRecordLines(text)[records + 1] : undefined;
  return line === undefined
    ? error.message
    : error.message.replace(/\b(on|at) line \d+/, `$1 line ${line}`);
}

function itemOfRow(row: Record<string, string>): Record<string, unknown> {
  const item: Record<string, unknown> = {
    // An empty cell is a missing value, which the service reports as `field required`.
    id: row.id?.trim() ? integerOrText(row.id) : undefined,
    // A text cell that an export neutralised against spreadsheet formulas gets its text back.
    term: row.term === undefined ? undefined : unneutralise(row.term),
    definition: row.definition === undefined ? undefined : unneutralise(row.definition),
    category: row.category === undefined ? undefined : unneutralise(row.category),
  };
  if (row.see_also !== undefined) {
    item.see_also = row.see_also
      .split(';')
      .map((id) => id.trim())
      .filter(Boolean)
      .map(integerOrText);
  }
  // Entries separated by ` | `; an empty cell is no names.
  for (const column of ['aliases', 'avoid'] as const) {
    const cell = row[column];
    if (cell !== undefined && cell.trim() !== '') item[column] = namesFromCell(cell);
  }
  return item;
}

function checkHeader(file: string, header: string[]): string[] {
  const expected = `the header must be ${CSV_COLUMNS.join(',')}`;
  // A spreadsheet set to a language whose decimal mark is a comma saves `;`-separated "CSV".
  const only = header.length === 1 ? (header[0] ?? '') : '';
  for (const [sign, name] of [
    [';', 'semicolons'],
    ['\t', 'tabs'],
  ] as const) {
    if (only.includes(sign) && only.split(sign).some((cell) => cell.trim() === 'id')) {
      throw new CliError(
        `${file}: the columns are separated by ${name}, not commas; save it as comma-separated CSV (${expected})`,
      );
    }
  }
  const columns = header.map((column) => column.trim());
  const unknown = columns.find((column) => !(CSV_COLUMNS as readonly string[]).includes(column));
  const missing = REQUIRED_COLUMNS.filter((column) => !columns.includes(column));
  const repeated = columns.find((column, index) => columns.indexOf(column) !== index);
  const problem = unknown
    ? `unknown column '${unknown}'`
    : missing.length > 0
      ? `missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`
      : repeated
        ? `column '${repeated}' appears twice`
        : null;
  if (problem) throw new CliError(`${file}: ${problem}; ${expected}`);
  return columns;
}

/** A whole number becomes a JSON number; anything else stays text, for the service to reject. */
function integerOrText(value: string): number | string {
  const trimmed = value.trim();
  return /^-?\d+$/.test(trimmed) ? Number(trimmed) : value;
}
