/**
 * The few trigrams of a folded search pattern that a trigram index is asked for, by both
 * stores. A term containing the pattern contains each of its trigrams, so asking for some of
 * them never loses a match; it lets through terms that hold those trigrams but not the
 * pattern, and every candidate is then checked for the whole pattern.
 *
 * Each trigram asked for costs a posting list read; checking a candidate costs little. So the
 * index is asked for a few trigrams that do not overlap (they carry the most independent
 * information): from the start, and the one ending the pattern; for a pattern that repeats
 * itself (`942942` gives only `942` there), overlapping ones up to two. Trigrams are runs of
 * three code points (as SQLite's trigram tokenizer counts them); one holding U+0000 is left
 * out (FTS5 reads its query as a C string). Empty when the pattern has none.
 */
export function someTrigrams(folded: string): string[] {
  const points = Array.from(folded);
  const positions = Array.from({ length: Math.max(0, points.length - 2) }, (_, at) => at);
  const trigrams: string[] = [];
  const take = (at: number) => {
    const trigram = points.slice(at, at + 3).join('');
    if (!trigram.includes('\u0000') && !trigrams.includes(trigram)) trigrams.push(trigram);
  };
  for (const at of positions) if (at % 3 === 0 && trigrams.length < MAX_TRIGRAMS - 1) take(at);
  if (positions.length > 0) take(positions.length - 1);
  for (const at of positions) if (trigrams.length < 2) take(at);
  return trigrams;
}

const MAX_TRIGRAMS = 4;
