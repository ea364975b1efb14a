import type { Category, Term } from '../../glossary/term.ts';
import { withOtherNames } from '../term-names.ts';

/** A stored term as SQLite returns it. */
export interface TermRow {
  seq: number;
  id: number;
  term: string;
  term_folded: string;
  definition: string;
  category: Category;
  see_also: string;
  /** JSON arrays, NULL when the term has none (migration 9). */
  aliases: string | null;
  avoid: string | null;
  created_rev: number;
  created_at: number;
  created_by: string | null;
}

export const TERM_COLUMNS =
  't.seq, t.id, t.term, t.term_folded, t.definition, t.category, t.see_also, t.aliases, t.avoid, t.created_rev, t.created_at, t.created_by';

/** A stored list of other names: its JSON array, or NULL when it has no entry. */
export function namesJson(names: readonly string[] | undefined): string | null {
  return names && names.length > 0 ? JSON.stringify(names) : null;
}

const namesOfJson = (json: string | null | undefined) =>
  json ? (JSON.parse(json) as string[]) : undefined;

export function toTerm(row: TermRow): Term {
  return withOtherNames(
    {
      id: row.id,
      term: row.term,
      definition: row.definition,
      category: row.category,
      see_also: JSON.parse(row.see_also) as number[],
    },
    namesOfJson(row.aliases),
    namesOfJson(row.avoid),
  );
}

/** A term as read by id: term, definition, category, see_also, aliases, avoid (JSON). */
export type TermById = [string, string, Category, string, string | null, string | null];

/** A term of its own for each caller: callers asking for one id in one turn share the row. */
export function termById(
  id: number,
  [term, definition, category, seeAlso, aliases, avoid]: TermById,
): Term {
  return withOtherNames(
    { id, term, definition, category, see_also: JSON.parse(seeAlso) as number[] },
    namesOfJson(aliases),
    namesOfJson(avoid),
  );
}
