import type { TextFilter, WordCondition, WordsIn } from './filters.ts';
import type { Term } from './term.ts';
import { nameKey, wordsOf } from './words.ts';

/**
 * What a `TextFilter` (filters.ts) means, evaluated on one term in memory: a store that has
 * the few terms a query finds at any rank may tell each one's level this way rather than ask
 * its index once a level (its `rankAtOnce`). A store's own indexes must answer the same; the
 * `q` property test holds every store to a reference, whichever way it ranked.
 *
 * Each place's words are made once, when a condition first asks for them: most terms a `q`
 * finds are ranked by their names, and never need the words of their definition.
 */
class TermText {
  private nameWords?: Set<string>;
  private avoidWords?: Set<string>;
  private anyWords?: Set<string>;
  private keys?: string[];

  constructor(private readonly term: Term) {}

  /** Whether the term meets every condition of `filter`. */
  matches(filter: TextFilter): boolean {
    const name = filter.name;
    if (name) {
      const keys = this.nameKeys();
      if (name.is !== undefined && !keys.includes(name.is)) return false;
      if (name.isNot !== undefined && keys.includes(name.isNot)) return false;
      const starts = (start: string) => keys.some((key) => key.startsWith(start));
      if (name.startsWith !== undefined && !starts(name.startsWith)) return false;
      if (name.startsNotWith !== undefined && starts(name.startsNotWith)) return false;
    }
    return filter.words === undefined || this.has(filter.words);
  }

  private has(condition: WordCondition): boolean {
    if ('all' in condition) return condition.all.every((part) => this.has(part));
    if ('some' in condition) return condition.some.some((part) => this.has(part));
    if ('not' in condition) return !this.has(condition.not);
    const { words, prefix } = condition.has;
    const found = this.words(condition.has.in);
    if (words.some((word) => found.has(word))) return true;
    if (prefix === undefined) return false;
    for (const word of found) if (word.startsWith(prefix)) return true;
    return false;
  }

  /** The keys (`nameKey`) of its accepted names: the name and each alias. */
  private nameKeys(): string[] {
    this.keys ??= [this.term.term, ...(this.term.aliases ?? [])].map(nameKey);
    return this.keys;
  }

  private words(place: WordsIn): Set<string> {
    const term = this.term;
    this.nameWords ??= new Set([term.term, ...(term.aliases ?? [])].flatMap(wordsOf));
    if (place === 'name') return this.nameWords;
    this.avoidWords ??= new Set((term.avoid ?? []).flatMap(wordsOf));
    if (place === 'avoid') return this.avoidWords;
    this.anyWords ??= new Set([...this.nameWords, ...this.avoidWords, ...wordsOf(term.definition)]);
    return this.anyWords;
  }
}

/**
 * Whether `term` meets a filter, as a store's word indexes would tell: one term asked about
 * several filters makes its words once.
 */
export function termMatcher(term: Term): (filter: TextFilter) => boolean {
  const text = new TermText(term);
  return (filter) => text.matches(filter);
}

/**
 * `terms` (in creation order) in the order of `levels`: best level first, creation order within
 * a level; a term no level holds is left out. The levels of a ranking never overlap, so a
 * term's place is the first level it meets.
 */
export function rankInMemory(terms: readonly Term[], levels: readonly TextFilter[]): Term[] {
  const ranked = terms.flatMap((term) => {
    const text = new TermText(term);
    const level = levels.findIndex((filter) => text.matches(filter));
    return level < 0 ? [] : [{ term, level }];
  });
  // A stable sort: within a level, creation order stays.
  return ranked.sort((a, b) => a.level - b.level).map(({ term }) => term);
}
