import type { Term } from './term.ts';

/**
 * The glossary as files: JSON, CSV and Markdown. Dependency-free, so the CLI's export and the
 * page's downloads write exactly the same files, a term at a time (a long glossary is
 * written as it is read, never held whole).
 */

export const EXPORT_FORMATS = ['json', 'csv', 'md'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const CSV_COLUMNS = ['id', 'term', 'definition', 'category', 'see_also'] as const;

/** JSON: the same array GET /terms gives, one term a line; importing it rebuilds the glossary. */
export const json = {
  start: () => '[',
  term: (term: Term, first: boolean) => `${first ? '\n' : ',\n'}  ${JSON.stringify(term)}`,
  end: (empty: boolean) => (empty ? ']\n' : '\n]\n'),
};

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

const CATEGORY_ORDER = ['frontend', 'backend', 'devops', 'docs-as-code'];
const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
const LINK = /https?:\/\/[^\s<>"'`]+/g;
const TRAILING = /[.,;:!?)\]]+$/;

/**
 * A Markdown glossary for a docs-as-code site: one section per category (in the contract's
 * order), terms sorted by name, each with an explicit anchor `term-{id}` (stable whatever
 * the site's heading-slug rules) that the see-also links point to. All text from the
 * glossary is escaped, so a term can never turn into markup; an `http(s)://` address becomes
 * an autolink (`<...>`), which renders as the address itself. Sorting needs every term, so
 * this one takes the whole list.
 */
export function toMarkdown(terms: readonly Term[]): string {
  // A duplicated id (possible through POST /terms) resolves to its earliest term, as
  // GET /terms/{id} does; only that one carries the anchor.
  const byId = new Map<number, Term>();
  for (const term of terms) if (!byId.has(term.id)) byId.set(term.id, term);

  const lines = ['# Glossary', ''];
  const categories = [...new Set(terms.map((term) => term.category))].sort(
    (a, b) => rank(a) - rank(b) || collator.compare(a, b),
  );
  for (const category of categories) {
    lines.push(`## ${escapeInline(category)}`, '');
    const members = terms
      .filter((term) => term.category === category)
      .sort((a, b) => collator.compare(a.term, b.term) || a.id - b.id);
    for (const term of members) {
      const anchor = byId.get(term.id) === term ? `<a id="term-${term.id}"></a>` : '';
      lines.push(`### ${anchor}${escapeInline(term.term)}`, '');
      lines.push(...escapeBlock(term.definition), '');
      if (term.see_also.length > 0) {
        const links = term.see_also.map((id) => {
          const related = byId.get(id);
          return related
            ? `[${escapeInline(related.term)}](#term-${id})`
            : `ID ${id} (not in this glossary)`;
        });
        lines.push(`See also: ${links.join(', ')}`, '');
      }
    }
  }
  if (terms.length === 0) lines.push('The glossary is empty.', '');
  return `${lines.join('\n').trimEnd()}\n`;
}

function rank(category: string): number {
  const index = CATEGORY_ORDER.indexOf(category);
  return index === -1 ? CATEGORY_ORDER.length : index;
}

/** Backslash-escapes every character Markdown could read as inline markup or HTML. */
function escapeText(text: string): string {
  return text.replace(/[\\`*_{}[\]()<>#+!|~&]/g, '\\$&');
}

/** Escaped text, its addresses as autolinks (left unescaped: inside `<>` nothing is markup). */
function escapeInline(text: string): string {
  let out = '';
  let at = 0;
  for (const match of text.matchAll(LINK)) {
    const start = match.index ?? 0;
    const address = match[0].replace(TRAILING, '');
    out += `${escapeText(text.slice(at, start))}<${address}>`;
    at = start + address.length;
  }
  return (out + escapeText(text.slice(at))).replace(/\s+/g, ' ');
}

/**
 * A definition keeps its line breaks; a line must not start a list (`1.`, `1)`, `-`, `+`,
 * `*`), a heading, a quote or a setext underline (`=`, `-`), nor be read as code (indent).
 */
function escapeBlock(text: string): string[] {
  return text.split(/\r?\n/).map((line) =>
    escapeInline(line.trimStart())
      .replace(/^(\d+)([.)])/, '$1\\$2')
      .replace(/^([-=>])/, '\\$1'),
  );
}
