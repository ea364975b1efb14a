/**
 * The glossary's own vocabulary: what a term is, its categories, the limits on its fields, and
 * the orders a list can take. Dependency-free, so the HTTP schemas, the stores, the page and the
 * CLI all speak it without importing one another.
 */

export const CATEGORIES = ['frontend', 'backend', 'devops', 'docs-as-code'] as const;
export type Category = (typeof CATEGORIES)[number];

/**
 * A stored term: the five original fields, in this order, then its other names
 * (terminology-and-docs.md): `aliases`, other accepted names, and `avoid`, names a writer should
 * not use. Each of the two is present only when it has an entry, so a term without them is
 * exactly the five original fields, as every original request answered.
 */
export interface Term {
  id: number;
  term: string;
  definition: string;
  category: Category;
  see_also: number[];
  aliases?: string[];
  avoid?: string[];
}

/** Ids a JSON client can represent exactly: ±(2^53 − 1). */
export const MAX_ID = Number.MAX_SAFE_INTEGER;
export const MAX_TERM_LENGTH = 200;
export const MAX_DEFINITION_LENGTH = 10_000;
export const MAX_SEE_ALSO = 100;
/** Entries of `aliases`, and of `avoid`, each at most `MAX_TERM_LENGTH` characters. */
export const MAX_OTHER_NAMES = 20;
export const MAX_SEARCH_LENGTH = 200;
export const MAX_PAGE_SIZE = 1000;
/**
 * Entries of a history page: the most a client may ask for, and what it gets when it asks for
 * no number. A history grows without end; a page of it is bounded.
 */
export const MAX_HISTORY_PAGE = 100;

/**
 * A character a reader sees. Not one: whitespace, default-ignorable code points (zero-width
 * spaces and joiners, U+FEFF, fillers such as U+3164, variation selectors), format characters
 * (Cf: bidirectional overrides, soft hyphen, tags), controls (Cc), and combining marks (M),
 * which show only on a base character and so are never the visible part of a text on their
 * own. A regular expression source (for the `u` flag), so the JSON Schema `pattern` of a term's
 * text, the page and `isBlank` are one definition.
 */
export const VISIBLE_CHARACTER =
  '[^\\p{White_Space}\\p{Default_Ignorable_Code_Point}\\p{Cc}\\p{Cf}\\p{M}]';
const VISIBLE = new RegExp(VISIBLE_CHARACTER, 'u');

/**
 * Whether a text has no visible character: a name or definition made only of spaces, zero-width
 * characters or lone combining marks is as empty as `""` to a reader, and is refused like it.
 * Text with such characters among visible ones is not blank (and is kept exactly as sent).
 */
export function isBlank(text: string): boolean {
  return !VISIBLE.test(text);
}

/** Orders besides creation order: by folded term name or by id, ties by creation order. */
export const SORT_KEYS = ['term', '-term', 'id', '-id'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/** A term as a client may send it: `see_also`, `aliases` and `avoid` may be left out or null. */
export interface TermInput {
  id: number;
  term: string;
  definition: string;
  category: Category;
  see_also?: number[] | null | undefined;
  aliases?: string[] | null | undefined;
  avoid?: string[] | null | undefined;
}

/**
 * The stored form of a valid input: the five fields, `see_also` defaulted to [], then `aliases`
 * and `avoid` only when they have an entry (an empty or null list is not kept).
 */
export function termOf(input: TermInput): Term {
  const term: Term = {
    id: input.id,
    term: input.term,
    definition: input.definition,
    category: input.category,
    see_also: input.see_also ?? [],
  };
  if (input.aliases && input.aliases.length > 0) term.aliases = input.aliases;
  if (input.avoid && input.avoid.length > 0) term.avoid = input.avoid;
  return term;
}
