import type { Term } from '../term.ts';

export const CSV_COLUMNS = [
  'id',
  'term',
  'definition',
  'category',
  'see_also',
  'aliases',
  'avoid',
] as const;

/** Between the entries of an `aliases` or `avoid` cell. */
export const NAMES_SEPARATOR = ' | ';

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

/**
 * A list of names as one cell: the entries joined by ` | `, each neutralised on its own, and a
 * `|` or a backslash inside an entry escaped with a backslash, so `namesFromCell` gives back
 * exactly the entries, whatever they hold.
 */
export function namesCell(names: readonly string[] | undefined): string {
  return (names ?? [])
    .map((name) => neutralise(name).replace(/[\\|]/g, '\\$&'))
    .join(NAMES_SEPARATOR);
}

/**
 * The entries of a cell `namesCell` wrote (or a person typed: `K8s | kube`): split at each
 * `|` that no backslash escapes, each entry trimmed and its neutralising quote taken away;
 * empty entries are dropped, so an empty cell is no names. A backslash before anything but `|`
 * or a backslash stays as it is.
 */
export function namesFromCell(cell: string): string[] {
  const entries: string[] = [];
  let entry = '';
  for (let i = 0; i < cell.length; i += 1) {
    const char = cell[i] as string;
    const next = cell[i + 1];
    if (char === '\\' && (next === '|' || next === '\\')) {
      i += 1;
      entry += next;
    } else if (char === '|') {
      entries.push(entry);
      entry = '';
    } else entry += char;
  }
  entries.push(entry);
  return entries.map((text) => unneutralise(text.trim())).filter((text) => text !== '');
}

/** RFC 4180: a field is quoted when it holds a comma, a quote or a line break. */
function field(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/**
 * CSV, RFC 4180 (CRLF line ends), text cells neutralised; `see_also` ids joined by `;`,
 * `aliases` and `avoid` entries by ` | `.
 */
export const csv = {
  start: () => `${CSV_COLUMNS.join(',')}\r\n`,
  term: (term: Term) =>
    `${[
      String(term.id),
      field(neutralise(term.term)),
      field(neutralise(term.definition)),
      field(neutralise(term.category)),
      term.see_also.join(';'),
      field(namesCell(term.aliases)),
      field(namesCell(term.avoid)),
    ].join(',')}\r\n`,
  end: () => '',
};
