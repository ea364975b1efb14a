/**
 * Turns a folded search pattern into an FTS5 query for the `terms_fts` trigram index, or
 * `undefined` when the index cannot help and the store must scan.
 *
 * The index holds every run of three code points of the folded term (the trigram tokenizer
 * counts code points, not UTF-16 units), so a term containing the pattern contains each of the
 * pattern's trigrams: asking for all of them (an AND of quoted strings) never loses a match.
 * It may let a term through that holds the trigrams elsewhere; the store checks every
 * candidate with `instr`, so the result is exactly the literal substring match of a scan.
 *
 * A pattern of fewer than three code points has no trigram. A trigram holding U+0000 is left
 * out: FTS5 reads its query as a C string, so it would be cut short there.
 */

/** More trigrams narrow the candidates less and less; each one costs a doclist read. */
const MAX_TRIGRAMS = 12;

export function trigramMatch(folded: string): string | undefined {
  const points = Array.from(folded);
  const trigrams = new Set<string>();
  for (let i = 0; i + 3 <= points.length; i += 1) {
    const trigram = points.slice(i, i + 3).join('');
    if (!trigram.includes('\u0000')) trigrams.add(trigram);
  }
  if (trigrams.size === 0) return undefined;
  const all = [...trigrams];
  // Spread evenly over the pattern, first and last included, when there are too many.
  const chosen =
    all.length <= MAX_TRIGRAMS
      ? all
      : Array.from(
          { length: MAX_TRIGRAMS },
          (_, k) => all[Math.round((k * (all.length - 1)) / (MAX_TRIGRAMS - 1))] as string,
        );
  // Inside an FTS5 string only `"` is special, escaped by doubling it.
  return chosen.map((trigram) => `"${trigram.replaceAll('"', '""')}"`).join(' AND ');
}
