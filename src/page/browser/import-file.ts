import { CSV_COLUMNS, namesFromCell, unneutralise } from '../../glossary/exports/csv.ts';

/** One item of a file, with the place people find it by: JSON's item number, CSV's line. */
export interface FileItem {
  /** "Item 3" (JSON, counted from 1) or "Line 7" (CSV, the line of the file it starts on). */
  row: string;
  item: unknown;
  /** Why the page cannot send it (a CSV line with too few or too many cells). */
  problem?: string;
}

/** A file the page cannot read, in words for people. */
export class UnreadableFile extends Error {}

const OPTIONAL_COLUMNS: readonly string[] = ['see_also', 'aliases', 'avoid'];

/**
 * The terms of a JSON or CSV file, as the items of a bulk request: the same columns and
 * conversions as `glossary import` (src/cli/read-terms-file.ts): `see_also` ids separated by
 * `;`, `aliases` and `avoid` by ` | `, a cell an export neutralised against spreadsheet
 * formulas given back its text. Judging the values is the service's job.
 */
export function readTermsFile(name: string, text: string): FileItem[] {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') throw new UnreadableFile(`${name} is empty.`);
  const json = /\.json$/i.test(name) || (!/\.csv$/i.test(name) && body.trimStart().startsWith('['));
  return json ? fromJson(name, body) : fromCsv(name, body);
}

function fromJson(name: string, text: string): FileItem[] {
  let items: unknown;
  try {
    items = JSON.parse(text);
  } catch (error) {
    const where = /line (\d+) column (\d+)/.exec((error as Error).message);
    throw new UnreadableFile(
      `${name} is not valid JSON${where ? ` (line ${where[1]}, column ${where[2]})` : ''}.`,
    );
  }
  if (!Array.isArray(items) || items.length === 0) {
    throw new UnreadableFile(`${name} must hold a list of terms: [{"id": 1, "term": …}, …].`);
  }
  return items.map((item, index) => ({ row: `Item ${index + 1}`, item }));
}

function fromCsv(name: string, text: string): FileItem[] {
  const [header, ...records] = csvRecords(name, text);
  if (!header) throw new UnreadableFile(`${name} is empty.`);
  const columns = header.cells.map((cell) => cell.trim());
  if (columns.length === 1 && columns[0]?.includes(';')) {
    throw new UnreadableFile(
      `${name} separates its columns with semicolons: save it with commas (as the CSV download is).`,
    );
  }
  const unknown = columns.find((column) => !(CSV_COLUMNS as readonly string[]).includes(column));
  const missing = CSV_COLUMNS.filter(
    (column) => !OPTIONAL_COLUMNS.includes(column) && !columns.includes(column),
  );
  if (unknown !== undefined || missing.length > 0) {
    throw new UnreadableFile(
      `${name}: ${unknown !== undefined ? `the column “${unknown}” is not one the glossary knows` : `the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} missing`}. The first line must name the columns: ${CSV_COLUMNS.join(',')}.`,
    );
  }
  if (records.length === 0) throw new UnreadableFile(`${name} holds no terms, only its header.`);
  return records.map(({ line, cells }) => {
    if (cells.length !== columns.length) {
      return {
        row: `Line ${line}`,
        item: null,
        problem: `This line has ${cells.length} ${cells.length === 1 ? 'cell' : 'cells'}, the header ${columns.length} columns: a comma may need quotes around its cell.`,
      };
    }
    const row = Object.fromEntries(columns.map((column, index) => [column, cells[index] ?? '']));
    const item: Record<string, unknown> = {
      id: row.id?.trim() ? integerOrText(row.id) : undefined,
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
    for (const column of ['aliases', 'avoid'] as const) {
      const cell = row[column];
      if (cell !== undefined && cell.trim() !== '') item[column] = namesFromCell(cell);
    }
    return { row: `Line ${line}`, item };
  });
}

function integerOrText(value: string): number | string {
  const trimmed = value.trim();
  return /^-?\d+$/.test(trimmed) ? Number(trimmed) : value;
}

/**
 * The records of a CSV text (RFC 4180: quoted cells may hold commas, quotes doubled, line
 * breaks), each with the line it starts on; empty lines are skipped. A small reader of its
 * own rather than csv-parse, which would double the page's script for one panel.
 */
function csvRecords(name: string, text: string): { line: number; cells: string[] }[] {
  const records: { line: number; cells: string[] }[] = [];
  let cells: string[] = [];
  let cell = '';
  let line = 1;
  let start = 1;
  let quoted = false;
  let quoteLine = 0;
  const endRecord = () => {
    cells.push(cell);
    if (cells.length > 1 || cells[0] !== '') records.push({ line: start, cells });
    cells = [];
    cell = '';
  };
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] as string;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (char === '"') quoted = false;
      else {
        if (char === '\n') line += 1;
        cell += char;
      }
    } else if (char === '"' && cell === '') {
      quoted = true;
      quoteLine = line;
    } else if (char === ',') {
      cells.push(cell);
      cell = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i += 1;
      endRecord();
      line += 1;
      start = line;
    } else cell += char;
  }
  if (quoted) {
    throw new UnreadableFile(
      `${name}: the quote opened on line ${quoteLine} is never closed, so the file is not valid CSV.`,
    );
  }
  endRecord();
  return records;
}
