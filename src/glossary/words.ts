import { DeleteIndex } from './delete-index.ts';
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
 * The words a typo may find, kept by each store in memory next to the vocabulary it keeps on
 * disk. A look-up runs on the event loop, so it must not cost in proportion to the
 * vocabulary (docs/performance.md, *The typo vocabulary*): a glossary whose names carry
 * identifiers (`cache shard 2a3b`) holds tens of thousands of short words, all within one
 * edit's length of a 5-letter query word.
 *
 * One edit (query words of 5 to 8 letters): words up to `ONE_EDIT_LONGEST` code points are
 * filed in a deletion index (delete-index.ts), which finds a superset of those one edit away
 * without reading the others. Two edits (from 9 letters; candidates at least 7 long, where
 * identifiers are few) would file each word under dozens of keys: those scan the words of
 * the lengths within reach, each with a mask of its characters (a-z a bit each, others one of
 * four bits; an edit changes at most two bits), skipping unread a word whose mask differs in
 * more than `2 × max` bits. Each candidate is checked by a distance that stops at `max + 1`
 * and computes only the cells within `max` of the diagonal, in buffers kept for the look-up.
 */
export class WordIndex {
  /** Each word's place in its group. */
  private readonly places = new Map<string, number>();
  private readonly groups = new Map<number, { words: string[]; masks: number[] }>();
  private readonly oneEdit = new DeleteIndex();

  get size(): number {
    return this.places.size;
  }

  has(word: string): boolean {
    return this.places.has(word);
  }

  add(word: string): void {
    if (this.places.has(word)) return;
    const length = wordLength(word);
    let group = this.groups.get(length);
    if (!group) {
      group = { words: [], masks: [] };
      this.groups.set(length, group);
    }
    this.places.set(word, group.words.length);
    group.words.push(word);
    group.masks.push(maskOf(word));
    if (length <= ONE_EDIT_LONGEST) this.oneEdit.add(word, codePoints(word));
  }

  remove(word: string): void {
    const place = this.places.get(word);
    if (place === undefined) return;
    this.places.delete(word);
    const length = wordLength(word);
    if (length <= ONE_EDIT_LONGEST) this.oneEdit.remove(word, codePoints(word));
    const group = this.groups.get(length) as { words: string[]; masks: number[] };
    // The last word of the group takes the place of the one removed.
    const last = group.words.pop() as string;
    const lastMask = group.masks.pop() as number;
    if (last !== word) {
      group.words[place] = last;
      group.masks[place] = lastMask;
      this.places.set(last, place);
    }
  }

  /** Every word known, in no order. */
  words(): IterableIterator<string> {
    return this.places.keys();
  }

  /** The known words 1 to `max` edits away from `word`. */
  similar(word: string, max: number): string[] {
    if (max <= 0) return [];
    const query = codePoints(word);
    const length = query.length;
    const distance = new BoundedDistance(query, length + max, max);
    const found: string[] = [];
    if (max === 1 && length + 1 <= ONE_EDIT_LONGEST) {
      for (const candidate of this.oneEdit.candidates(query)) {
        const other = wordLength(candidate);
        // A candidate of another length than one edit allows shares only a key's hash.
        if (Math.abs(other - length) > 1 || candidate === word) continue;
        if (distance.within(candidate, other)) found.push(candidate);
      }
      return found.sort();
    }
    const mask = maskOf(word);
    for (let other = Math.max(1, length - max); other <= length + max; other += 1) {
      const group = this.groups.get(other);
      if (!group) continue;
      const { words, masks } = group;
      for (let i = 0; i < words.length; i += 1) {
        if (bitCount((masks[i] as number) ^ mask) > 2 * max) continue;
        const candidate = words[i] as string;
        if (candidate !== word && distance.within(candidate, other)) found.push(candidate);
      }
    }
    return found.sort();
  }
}

/** The longest word the one-edit index files: a one-edit query word (8 letters) and one more. */
const ONE_EDIT_LONGEST = 9;

function codePoints(word: string): Int32Array {
  const points = new Int32Array(word.length);
  let length = 0;
  for (let i = 0; i < word.length; i += 1) {
    const code = word.codePointAt(i) as number;
    points[length++] = code;
    if (code > 0xffff) i += 1;
  }
  return length === word.length ? points : points.subarray(0, length);
}

/**
 * The characters a word holds, as bits: a-z one each, a character beyond the BMP (both halves
 * of its surrogate pair) one, and any other one of three by its code. Each character sets one
 * bit, which is what the bound on edits needs.
 */
function maskOf(word: string): number {
  let mask = 0;
  for (let i = 0; i < word.length; i += 1) {
    const code = word.charCodeAt(i);
    if (code >= 97 && code <= 122) mask |= 1 << (code - 97);
    else if (code >= 0xd800 && code <= 0xdfff) mask |= 1 << 29;
    else mask |= 1 << (26 + (code % 3));
  }
  return mask;
}

function bitCount(value: number): number {
  let v = value - ((value >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * `editDistance(query, candidate, max) <= max`, for many candidates against one query: the
 * same optimal string alignment, computed only within `max` of the diagonal (a cell further
 * off is more than `max` edits, and every path through it ends above `max`), in three rows
 * kept from one candidate to the next.
 */
class BoundedDistance {
  private readonly other: Int32Array;
  private rows: [Int32Array, Int32Array, Int32Array];

  constructor(
    private readonly query: Int32Array,
    longest: number,
    private readonly max: number,
  ) {
    this.other = new Int32Array(longest);
    this.rows = [
      new Int32Array(longest + 1),
      new Int32Array(longest + 1),
      new Int32Array(longest + 1),
    ];
  }

  /** Whether `candidate`, of `length` code points, is at most `max` edits from the query. */
  within(candidate: string, length: number): boolean {
    const s = this.query;
    const n = s.length;
    const m = length;
    const t = this.other;
    const max = this.max;
    const far = max + 1;
    if (candidate.length === m) {
      for (let j = 0; j < m; j += 1) t[j] = candidate.charCodeAt(j);
    } else {
      let j = 0;
      for (const char of candidate) t[j++] = char.codePointAt(0) as number;
    }
    let [before, previous, current] = this.rows;
    for (let j = 0; j <= Math.min(m, max); j += 1) previous[j] = j;
    if (max + 1 <= m) previous[max + 1] = far;
    for (let i = 1; i <= n; i += 1) {
      const low = Math.max(1, i - max);
      const high = Math.min(m, i + max);
      current[0] = i;
      if (low > 1) current[low - 1] = far;
      let best = low > 1 ? far : i;
      const si = s[i - 1] as number;
      for (let j = low; j <= high; j += 1) {
        const tj = t[j - 1] as number;
        let value = Math.min(
          (previous[j] as number) + 1,
          (current[j - 1] as number) + 1,
          (previous[j - 1] as number) + (si === tj ? 0 : 1),
        );
        if (i > 1 && j > 1 && si === t[j - 2] && s[i - 2] === tj) {
          value = Math.min(value, (before[j - 2] as number) + 1);
        }
        current[j] = value;
        if (value < best) best = value;
      }
      if (high < m) current[high + 1] = far;
      if (best > max) return false;
      [before, previous, current] = [previous, current, before];
    }
    return (previous[m] as number) <= max;
  }
}
