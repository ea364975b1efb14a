/**
 * Deterministic synthetic terms: names of two vocabulary words, a four-character identifier and
 * the number (`Cache shard 2a3b 12345`), so a number of five or more digits is a selective
 * search (a handful of names hold it), a vocabulary word a broad one (about one name in eight),
 * and the identifiers fill the vocabulary as code names do in a real glossary: every term has
 * one of its own, so 100,000 terms bring 100,000 words of four characters, the length band a
 * one-typo look-up of a 5-letter word compares against.
 */
export const WORDS = [
  'cache',
  'queue',
  'router',
  'kernel',
  'schema',
  'index',
  'render',
  'deploy',
  'socket',
  'token',
  'stream',
  'buffer',
  'proxy',
  'cluster',
  'shard',
  'vector',
];
const CATEGORIES = ['frontend', 'backend', 'devops', 'docs-as-code'] as const;

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
const SPACE = 36 ** 4;
/** Coprime with 36: `i * MIX mod 36⁴` is a bijection, so identifiers repeat only past 1.68M. */
const MIX = 1_046_527;

/**
 * Term i's identifier: four lowercase letters and digits, scattered by a multiplication so
 * neighbouring terms do not share a prefix, and with at least one letter (a word of digits
 * alone is a number, which a typo never finds, and would not fill the typo vocabulary).
 */
export function identifier(i: number): string {
  let n = (i * MIX) % SPACE;
  let id = '';
  for (let k = 0; k < 4; k += 1) {
    id = (ALPHABET[n % 36] as string) + id;
    n = Math.floor(n / 36);
  }
  return /[a-z]/.test(id) ? id : `${ALPHABET[10 + (i % 26)]}${id.slice(1)}`;
}

export function term(i: number) {
  const a = WORDS[i % 16] as string;
  const b = WORDS[Math.floor(i / 16) % 16] as string;
  return {
    id: i,
    term: `${a[0]?.toUpperCase()}${a.slice(1)} ${b} ${identifier(i)} ${i}`,
    definition: `Definition of the ${a} ${b} number ${i}: a concept that ${b} systems use to reach their ${a} when they scale.`,
    category: CATEGORIES[i % 4] as string,
    see_also: i > 0 ? [i - 1, (i * 7) % (i + 1)] : [],
  };
}

export const BROAD_WORD = 'cluster';

/** A word with its third letter changed: one typo, same length (`shard` → `shxrd`). */
export function mistyped(word: string): string {
  return `${word.slice(0, 2)}${word[2] === 'x' ? 'y' : 'x'}${word.slice(3)}`;
}

const indexesOf = (length: number) =>
  WORDS.flatMap((word, index) => (word.length === length ? [index] : []));
const FIVE = indexesOf(5);
const SIX = indexesOf(6);

/**
 * The one-typo `q` for a random term of [from, to): its first word mistyped, and its number.
 * Two in three mistype a word of 5 letters, whose length band (4-6) holds the identifiers; one
 * in three a word of 6 letters (band 5-7, no identifiers), as a real mix of look-ups would.
 */
export function oneTypoQuery(from: number, to: number): string {
  const pick = Math.random() < 2 / 3 ? FIVE : SIX;
  let i = from + Math.floor(Math.random() * (to - from));
  i += (pick[Math.floor(Math.random() * pick.length)] as number) - (i % 16);
  if (i >= to) i -= 16;
  return `${mistyped(WORDS[i % 16] as string)} ${i}`;
}

/**
 * The mixed load's eight `q` words: four with one typo (three of 5 letters, one of 6) and four
 * broad vocabulary words, each found in about one name in eight.
 */
export const MIXED_QUERIES = [
  mistyped('shard'),
  mistyped('cache'),
  mistyped('token'),
  mistyped('socket'),
  'cluster',
  'kernel',
  'queue',
  'stream',
];
