import type { Category, Term } from '../../glossary/term.ts';

/** A stored term as SQLite returns it. */
export interface TermRow {
  seq: number;
  id: number;
  term: string;
  term_folded: string;
  definition: string;
  category: Category;
  see_also: string;
  created_rev: number;
  created_at: number;
  created_by: string | null;
}

export const TERM_COLUMNS =
  't.seq, t.id, t.term, t.term_folded, t.definition, t.category, t.see_also, t.created_rev, t.created_at, t.created_by';

export function toTerm(row: TermRow): Term {
  return {
    id: row.id,
    term: row.term,
    definition: row.definition,
    category: row.category,
    see_also: JSON.parse(row.see_also) as number[],
  };
}

/** A term as read by id: term, definition, category, see_also (JSON). */
export type TermById = [string, string, Category, string];

/** A term of its own for each caller: callers asking for one id in one turn share the row. */
export function termById(id: number, [term, definition, category, seeAlso]: TermById): Term {
  return { id, term, definition, category, see_also: JSON.parse(seeAlso) as number[] };
}
