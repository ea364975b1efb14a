import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { CliError } from './cli-error.ts';

export type FileFormat = 'json' | 'csv';

import { CSV_COLUMNS, namesFromCell, unneutralise } from '../glossary/exports/csv.ts';

/** `see_also`, `aliases` and `avoid` may be left out: a five-column (or four) file imports. */
const OPTIONAL_COLUMNS: readonly string[] = ['see_also', 'aliases', 'avoid'];
const REQUIRED_COLUMNS = CSV_COLUMNS.filter((column) => !OPTIONAL_COLUMNS.includes(column));

/**
 * The terms of a JSON or CSV file, as the items of a bulk request. Values are converted only
 * as far as the format needs (CSV has no numbers or lists); judging them is the service's job,
 * so a bad item comes back as a rejected item with the service's reason, not as a bad file.
 */
export function readTermsFile(file: string, format?: FileFormat): unknown[] {
  const text = readText(file);
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

function fromJson(file: string, text: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new CliError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new CliError(`${file} must hold a JSON array of terms`);
  return parsed;
}

function fromCsv(file: string, text: string): unknown[] {
  let rows: Record<string, string>[];
  try {
    rows = parse(text, {
      bom: true,
      columns: (header: string[]) => checkHeader(file, header),
      skip_empty_lines: true,
    });
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`${file} is not valid CSV: ${(error as Error).message}`);
  }
  return rows.map((row) => {
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
  });
}

function checkHeader(file: string, header: string[]): string[] {
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
  if (problem) {
    throw new CliError(`${file}: ${problem}; the header must be ${CSV_COLUMNS.join(',')}`);
  }
  return columns;
}

/** A whole number becomes a JSON number; anything else stays text, for the service to reject. */
function integerOrText(value: string): number | string {
  const trimmed = value.trim();
  return /^-?\d+$/.test(trimmed) ? Number(trimmed) : value;
}
