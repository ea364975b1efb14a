import type { WordCondition, WordsIn } from '../../glossary/filters.ts';

/** The columns of `terms_words` each place of a word is (filters.ts, `WordsIn`). */
const COLUMNS: Record<WordsIn, string> = {
  name: '{name_words}',
  avoid: '{avoid_words}',
  any: '{name_words definition_words avoid_words}',
};

/**
 * A word condition as an FTS5 query over `terms_words`. The words are already folded and
 * split (words.ts: letters and digits only), so each is quoted as it is; the `ascii` tokenizer
 * keeps it whole. FTS5 has AND, OR and a binary NOT, so a `not` may only stand in an `all`
 * beside something positive, which is how the ranking uses it.
 */
export function ftsQuery(condition: WordCondition): string {
  if ('has' in condition) {
    const { words, prefix } = condition.has;
    const columns = COLUMNS[condition.has.in];
    const terms = [...words.map((word) => `"${word}"`), ...(prefix ? [`"${prefix}" *`] : [])];
    if (terms.length === 0) throw new Error('a word condition without words');
    return `${columns} : (${terms.join(' OR ')})`;
  }
  if ('some' in condition) return `(${condition.some.map(ftsQuery).join(' OR ')})`;
  if ('not' in condition) throw new Error('a `not` must stand in an `all` beside a positive term');
  const positive = condition.all.filter((part) => !('not' in part));
  const negative = condition.all.flatMap((part) => ('not' in part ? [part.not] : []));
  if (positive.length === 0) throw new Error('an `all` needs a positive term');
  const both = `(${positive.map(ftsQuery).join(' AND ')})`;
  return negative.reduce((query, part) => `${query} NOT ${ftsQuery(part)}`, both);
}
