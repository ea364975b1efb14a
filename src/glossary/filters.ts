import type { Category, SortKey } from './term.ts';

export interface TermFilter {
  category?: Category | undefined;
  /** Already non-empty; the store folds it with `foldCase`. */
  search?: string | undefined;
  /**
   * Only the terms whose folded name sorts at or after `from` (folded with `foldCase`, compared
   * by code point as `sort: 'term'` orders), or, with `before`, strictly before it.
   */
  range?: { from: string; before: boolean } | undefined;
  /** Conditions on the term's words (words.ts), for `q`. */
  text?: TextFilter | undefined;
  /** Only the terms whose `see_also` holds this id (`links_to`). */
  linksTo?: number | undefined;
}

/**
 * Where a word is looked for: `name`, the words of the term's name and of its aliases (its
 * accepted names); `avoid`, the words of its names to avoid; `any`, all of these and the
 * words of its definition.
 */
export type WordsIn = 'name' | 'avoid' | 'any';

/**
 * A condition on a term's words, as words.ts makes them: `has` holds when the term's words
 * `in` one place have one of `words`, or a word starting with `prefix`.
 */
export type WordCondition =
  | { has: { in: WordsIn; words: readonly string[]; prefix?: string | undefined } }
  | { all: readonly WordCondition[] }
  | { some: readonly WordCondition[] }
  | { not: WordCondition };

export interface TextFilter {
  /** At least one `has` must stand outside every `not`. */
  words?: WordCondition | undefined;
  /**
   * Conditions on the keys of the term's accepted names, its name and each alias (`nameKey`
   * in words.ts: the words joined by single spaces): `is`, some key is the text; `isNot`, no
   * key is; `startsWith`, some key starts with it; `startsNotWith`, no key does.
   */
  name?:
    | {
        is?: string | undefined;
        isNot?: string | undefined;
        startsWith?: string | undefined;
        startsNotWith?: string | undefined;
      }
    | undefined;
}

export interface ListOptions {
  /** Creation order when absent. */
  sort?: SortKey | undefined;
  /** Skip this many matching terms first. */
  offset?: number | undefined;
  /** Return at most this many terms. */
  limit?: number | undefined;
}
