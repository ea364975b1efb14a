/**
 * Turns a folded search pattern into an FTS5 query for the `terms_fts` trigram index, or
 * `undefined` when the index cannot help and the store must scan.
 *
 * The index holds every run of three code points of the folded term (the trigram tokenizer
 * counts code points, not UTF-16 units), so a term containing the pattern contains each of the
 * pattern's trigrams: asking for some of them (an AND of quoted strings) never loses a match.
 * It lets through terms that hold those trigrams but not the pattern; the store checks every
 * candidate with `instr`, so the result is exactly the literal substring match of a scan.
 *
 * A pattern of fewer than three code points has no trigram. A trigram holding U+0000 is left
 * out: FTS5 reads its query as a C string, so it would be cut short there.
 */

/**
 * Each trigram asked for costs a doclist read; verifying a candidate costs little. So the query
 * asks for a few trigrams that do not overlap (they carry the most independent information)
 * and leaves the rest to the check.
 */
const MAX_TRIGRAMS = 4;

export function trigramMatch(folded: string): string | undefined {
  const points = Array.from(folded);
  const positions = Array.from({ length: Math.max(0, points.length - 2) }, (_, at) => at);
  const trigrams: string[] = [];
  const take = (at: number) => {
    const trigram = points.slice(at, at + 3).join('');
    if (!trigram.includes('\u0000') && !trigrams.includes(trigram)) trigrams.push(trigram);
  };
  // Non-overlapping positions from the start and the one ending the pattern; then, for a
  // pattern that repeats itself (`942942` gives only `942` there), overlapping ones up to two.
  for (const at of positions) if (at % 3 === 0 && trigrams.length < MAX_TRIGRAMS - 1) take(at);
  if (positions.length > 0) take(positions.length - 1);
  for (const at of positions) if (trigrams.length < 2) take(at);
  if (trigrams.length === 0) return undefined;
  // Inside an FTS5 string only `"` is special, escaped by doubling it.
  return trigrams.map((trigram) => `"${trigram.replaceAll('"', '""')}"`).join(' AND ');
}
