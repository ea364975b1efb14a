import { someTrigrams } from '../trigrams.ts';

/**
 * Turns a folded search pattern into an FTS5 query for the `terms_fts` trigram index, or
 * `undefined` when the index cannot help and the store must scan.
 *
 * The index holds every run of three code points of the folded term (the trigram tokenizer
 * counts code points, not UTF-16 units); the query asks for a few of the pattern's trigrams
 * (`someTrigrams`), and the store checks every candidate with `instr`, so the result is
 * exactly the literal substring match of a scan. A pattern of fewer than three code points
 * has no trigram.
 */
export function trigramMatch(folded: string): string | undefined {
  const trigrams = someTrigrams(folded);
  if (trigrams.length === 0) return undefined;
  // Inside an FTS5 string only `"` is special, escaped by doubling it.
  return trigrams.map((trigram) => `"${trigram.replaceAll('"', '""')}"`).join(' AND ');
}
