import type { TextFilter, WordCondition, WordsIn } from './filters.ts';
import type { Ranking, TermStore } from './term-store.ts';
import { nameKey, typosAllowed, wordsOf } from './words.ts';

/**
 * `q`: words in names and definitions, ranked (search-and-reading.md).
 *
 * Every word of the query must match a word of the term, in its name, its aliases, its names
 * to avoid or its definition: the same word; for the last query word, any word it begins; or,
 * for a query word of 5 to 8 letters, a word one edit away (two from 9 letters; edits as
 * `editDistance` counts them).
 *
 * An alias is a name like the term's own (terminology-and-docs.md): "the name" below is the
 * name or any alias. The ranking is a list of levels, each a condition the store evaluates in
 * creation order:
 *
 *  1. the name is exactly the query's words;
 *  2. the name starts with them, each a whole word (`ci` → "CI pipeline");
 *  3. every query word is a whole word of the names ("Jenkins CI");
 *  4. the name starts with them, the last one only as the prefix of a longer word ("Circuit
 *     breaker"): a whole word found ranks above a word that merely begins so (issue 32);
 *  5. every query word matches in the names, the last maybe as a prefix: first with no typo,
 *     then one typo, two...;
 *  6. every query word matches in the names to avoid (and not all in the names), by typos:
 *     below every name and alias match, so who knows only the wrong name still finds the
 *     term, and above a match in the definition;
 *  7. the others (some word matches in the definition only, or the words are spread over
 *     names, names to avoid and definition): again by typos.
 *
 * A typo is a query word matched only by a word some edits away (a word with two edits is
 * one typo); at level 5 they are counted in the names, at level 6 in the names to avoid, at
 * level 7 anywhere. Levels never overlap, so a page is read level by level, and only as far
 * as the page goes.
 */

interface QueryWord {
  word: string;
  last: boolean;
  /** Words of the glossary a few edits away (not those the word begins, when last). */
  similar: string[];
}

export interface ParsedQuery {
  words: QueryWord[];
  key: string;
}

/** The words of `q`, with the glossary's words each may be a typo of; null when q has none. */
export async function parseQuery(store: TermStore, q: string): Promise<ParsedQuery | null> {
  const words = wordsOf(q);
  if (words.length === 0) return null;
  const parsed = await Promise.all(
    words.map(async (word, i) => {
      const last = i === words.length - 1;
      const allowed = typosAllowed(word);
      const similar = allowed > 0 ? await store.similarWords(word, allowed) : [];
      return { word, last, similar: last ? similar.filter((w) => !w.startsWith(word)) : similar };
    }),
  );
  return { words: parsed, key: nameKey(q) };
}

type Where = WordsIn;

function exact(word: QueryWord, where: Where): WordCondition {
  return word.last
    ? { has: { in: where, words: [], prefix: word.word } }
    : { has: { in: where, words: [word.word] } };
}

/** The word itself, never as a prefix (for the last word too). */
function whole(word: QueryWord, where: Where): WordCondition {
  return { has: { in: where, words: [word.word] } };
}

function approximate(word: QueryWord, where: Where): WordCondition {
  return { has: { in: where, words: word.similar } };
}

function either(word: QueryWord, where: Where): WordCondition {
  return word.similar.length > 0
    ? { some: [exact(word, where), approximate(word, where)] }
    : exact(word, where);
}

/** Matched with exactly `typos` words only approximately, in `where`. */
function withTypos(query: ParsedQuery, where: Where, typos: number): WordCondition | null {
  const words = query.words;
  const fuzzy = words.flatMap((word, i) => (word.similar.length > 0 ? [i] : []));
  const choices = subsets(fuzzy, typos).map(
    (chosen): WordCondition => ({
      all: words.map((word, i) =>
        chosen.includes(i)
          ? { all: [approximate(word, where), { not: exact(word, where) }] }
          : exact(word, where),
      ),
    }),
  );
  if (choices.length === 0) return null;
  return choices.length === 1 ? (choices[0] as WordCondition) : { some: choices };
}

/** Every choice of `size` of `items`, in order. */
function subsets(items: readonly number[], size: number): number[][] {
  if (size === 0) return [[]];
  return items.flatMap((item, at) =>
    subsets(items.slice(at + 1), size - 1).map((rest) => [item, ...rest]),
  );
}

/**
 * The query's ranking: its levels, what they find together, and a name for both. The levels
 * are made from the parsed query alone (its words, each one's similar words, its name key), so
 * the parsed query's JSON names them.
 */
export function rankingOf(query: ParsedQuery): Ranking {
  return {
    levels: rankLevels(query),
    matches: matchAll(query),
    name: JSON.stringify([query.key, query.words]),
  };
}

/** Every term the query finds, whatever its rank. */
function matchAll(query: ParsedQuery): TextFilter {
  return { words: { all: query.words.map((word) => either(word, 'any')) } };
}

/** The levels of the ranking, best first. */
function rankLevels(query: ParsedQuery): TextFilter[] {
  const key = query.key;
  const exactInName: WordCondition = { all: query.words.map((word) => exact(word, 'name')) };
  const allInName: WordCondition = { all: query.words.map((word) => either(word, 'name')) };
  const allInAvoid: WordCondition = { all: query.words.map((word) => either(word, 'avoid')) };
  const wholeInName: WordCondition = { all: query.words.map((word) => whole(word, 'name')) };
  // A name that starts with the query's words as whole words starts with them and a space
  // (names are compared by their keys: words joined by single spaces).
  const wordsStart = `${key} `;
  const levels: TextFilter[] = [
    // An exact name is found through the name's own index, not through its words.
    { name: { is: key } },
    { words: wholeInName, name: { startsWith: wordsStart, isNot: key } },
    { words: wholeInName, name: { startsNotWith: wordsStart, isNot: key } },
    // Starting with the query is having its words (the last as a prefix); not having them
    // whole leaves the names whose last word only begins so.
    { words: { all: [exactInName, { not: wholeInName }] }, name: { startsWith: key } },
  ];
  const maxTypos = query.words.filter((word) => word.similar.length > 0).length;
  for (let typos = 0; typos <= maxTypos; typos += 1) {
    const inName = withTypos(query, 'name', typos);
    if (!inName) continue;
    // With no typo, the whole words were ranked above; a typo excludes them by itself.
    const words = typos === 0 ? { all: [inName, { not: wholeInName }] } : inName;
    levels.push({ words, name: { startsNotWith: key } });
  }
  for (let typos = 0; typos <= maxTypos; typos += 1) {
    const inAvoid = withTypos(query, 'avoid', typos);
    if (inAvoid) levels.push({ words: { all: [inAvoid, { not: allInName }] } });
  }
  for (let typos = 0; typos <= maxTypos; typos += 1) {
    const anywhere = withTypos(query, 'any', typos);
    if (anywhere) {
      levels.push({ words: { all: [anywhere, { not: allInName }, { not: allInAvoid }] } });
    }
  }
  return levels;
}
