import { foldCase } from '../../glossary/fold-case.ts';
import type { Category, SortKey, Term } from '../../glossary/term.ts';
import type { ListOptions, TermFilter } from '../term-store.ts';
import { decodeNul, encodeNul } from './nul-text.ts';

/** Terms as rows and query parameters, and the SQL of a list. */

export interface Row {
  id: number;
  term: string;
  definition: string;
  category: Category;
  see_also: number[];
}

export const COLUMNS = 'id, term, definition, category, see_also';

/** Each order is a key plus `seq` (creation order) as the tie-breaker, as in SQLite. */
const ORDER_BY: Record<SortKey | 'created', string> = {
  created: 'seq',
  term: 'term_folded, seq',
  '-term': 'term_folded DESC, seq',
  id: 'id, seq',
  '-id': 'id DESC, seq',
};

export function listQuery(
  filter: TermFilter,
  options: ListOptions,
): { text: string; values: unknown[] } {
  const { where, values } = filterSql(filter);
  let text = `SELECT ${COLUMNS} FROM terms ${where} ORDER BY ${ORDER_BY[options.sort ?? 'created']}`;
  if (options.limit !== undefined) {
    values.push(options.limit);
    text += ` LIMIT $${values.length}`;
  }
  if (options.offset) {
    values.push(options.offset);
    text += ` OFFSET $${values.length}`;
  }
  return { text, values };
}

/**
 * A literal, case-insensitive substring: both sides folded with `foldCase` (as SQLite does), the
 * pattern's LIKE metacharacters escaped. The trigram index serves patterns of 3 or more
 * characters; shorter ones are answered by a scan, with the same results.
 */
export function filterSql(filter: TermFilter): { where: string; values: unknown[] } {
  const clauses: string[] = [];
  const values: unknown[] = [];
  if (filter.category) {
    values.push(filter.category);
    clauses.push(`category = $${values.length}`);
  }
  if (filter.search) {
    values.push(`%${escapeLike(encodeNul(foldCase(filter.search)))}%`);
    clauses.push(`term_folded LIKE $${values.length}`);
  }
  if (filter.range) {
    values.push(encodeNul(foldCase(filter.range.from)));
    clauses.push(`term_folded ${filter.range.before ? '<' : '>='} $${values.length}`);
  }
  return { where: clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '', values };
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

export function termValues(term: Term): [number, string, string, string, string, string] {
  return [
    term.id,
    encodeNul(term.term),
    encodeNul(foldCase(term.term)),
    encodeNul(term.definition),
    term.category,
    JSON.stringify(term.see_also),
  ];
}

export function toTerm(row: Row): Term {
  return {
    id: row.id,
    term: decodeNul(row.term),
    definition: decodeNul(row.definition),
    category: row.category,
    see_also: row.see_also,
  };
}
