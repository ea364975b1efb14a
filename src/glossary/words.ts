import { caseFold } from './fold-case.ts';

/**
 * Words, as `q` finds them. A word is a run of letters and digits (Unicode `\p{L}` and `\p{N}`)
 * of a text folded in case (`caseFold`, fold-case.ts) and in compatibility and accents: NFKD, then every
 * combining mark dropped, so `Café` is `cafe`, `ﬁle` is `file` and `²` is `2`. Everything
 * else separates words. Both stores index and compare exactly what this module produces.
 * Dependency-free: the stores and the page use it too.
 */

const WORD = /[\p{L}\p{N}]+/gu;
const MARK = /\p{M}/gu;
const LETTER = /\p{L}/u;

/** Folded in case, compatibility and accents. */
export function normalizeText(text: string): string {
  return caseFold(text).normalize('NFKD').replace(MARK, '');
}

/**
 * The longest word, in code points; a longer run of letters and digits is cut to its start
 * (PostgreSQL's index takes words of at most 2,047 bytes, four bytes a code point at most).
 */
export const MAX_WORD = 500;

/** The words of a text, in order, repeats kept. */
export function wordsOf(text: string): string[] {
  const words = normalizeText(text).match(WORD) ?? [];
  return words.map((word) =>
    word.length > MAX_WORD ? Array.from(word).slice(0, MAX_WORD).join('') : word,
  );
}

/** A name as its words joined by single spaces: what "exact name" and "starts with" compare. */
export function nameKey(name: string): string {
  return wordsOf(name).join(' ');
}

/** Code points, not UTF-16 units: what "a word of 5 letters" counts. */
export function wordLength(word: string): number {
  let length = 0;
  for (const _ of word) length += 1;
  return length;
}

/** Query words longer than this get no typo tolerance (nor do vocabulary words). */
export const MAX_TYPO_WORD = 64;

/**
 * Edits a query word may be away from a word it finds: none up to 4 letters, one from 5 to 8,
 * two from 9 on. A word without a letter (a number) is matched exactly or as a prefix only.
 */
export function typosAllowed(word: string): number {
  const length = wordLength(word);
  if (length > MAX_TYPO_WORD || !LETTER.test(word)) return 0;
  return length >= 9 ? 2 : length >= 5 ? 1 : 0;
}

/**
 * Whether a word of the glossary can ever be found by a typo: one with a letter, of 3 to
 * MAX_TYPO_WORD + 2 code points (a 5-letter query word two edits away... is at least 3 long).
 */
export function typoCandidate(word: string): boolean {
  const length = wordLength(word);
  return length >= 3 && length <= MAX_TYPO_WORD + 2 && LETTER.test(word);
}

/**
 * Optimal string alignment distance (Damerau-Levenshtein where no substring is edited twice):
 * insertions, deletions, substitutions and swaps of two neighbours each count one edit, on
 * code points. Answers `max + 1` as soon as the distance must exceed `max`.
 */
export function editDistance(a: string, b: string, max: number): number {
  const s = Array.from(a);
  const t = Array.from(b);
  if (Math.abs(s.length - t.length) > max) return max + 1;
  let before = new Array<number>(t.length + 1).fill(0);
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i += 1) {
    const current = new Array<number>(t.length + 1).fill(0);
    current[0] = i;
    let best = i;
    for (let j = 1; j <= t.length; j += 1) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) {
        value = Math.min(value, (before[j - 2] as number) + 1);
      }
      current[j] = value;
      if (value < best) best = value;
    }
    if (best > max) return max + 1;
    before = previous;
    previous = current;
  }
  return Math.min(previous[t.length] as number, max + 1);
}

/**
 * The words a typo may find, grouped by length, so a look-up compares only the words that
 * are at most `max` code points longer or shorter. Kept by each store in memory, next to the
 * vocabulary it keeps on disk.
 */
export class WordIndex {
  private readonly known = new Set<string>();
  private readonly byLength = new Map<number, string[]>();

  get size(): number {
    return this.known.size;
  }

  has(word: string): boolean {
    return this.known.has(word);
  }

  add(word: string): void {
    if (this.known.has(word)) return;
    this.known.add(word);
    const length = wordLength(word);
    const bucket = this.byLength.get(length);
    if (bucket) bucket.push(word);
    else this.byLength.set(length, [word]);
  }

  /** The known words 1 to `max` edits away from `word`. */
  similar(word: string, max: number): string[] {
    if (max <= 0) return [];
    const length = wordLength(word);
    const found: string[] = [];
    for (let other = length - max; other <= length + max; other += 1) {
      for (const candidate of this.byLength.get(other) ?? []) {
        if (candidate !== word && editDistance(word, candidate, max) <= max) found.push(candidate);
      }
    }
    return found.sort();
  }
}
