import type { Term } from '../glossary/term.ts';
import type { ListOptions, TermFilter, TermStore, TextFilter } from './term-store.ts';

/**
 * One page (or, without `limit`, all) of the ranked matches of `levels` that also satisfy
 * `filter`, read level by level: a level before the page is counted, not read.
 */
export async function* rankedLevels(
  store: TermStore,
  filter: TermFilter,
  levels: readonly TextFilter[],
  page: Pick<ListOptions, 'limit' | 'offset'>,
): AsyncGenerator<Term[]> {
  let offset = page.offset ?? 0;
  let remaining = page.limit ?? Number.POSITIVE_INFINITY;
  for (const level of levels) {
    if (remaining <= 0) return;
    const scoped = { ...filter, text: level };
    if (offset > 0) {
      // Only whether the level ends before the page matters: count no further than that.
      const count = await store.count(scoped, offset + 1);
      if (offset >= count) {
        offset -= count;
        continue;
      }
    }
    const limit = Number.isFinite(remaining) ? remaining : undefined;
    for await (const chunk of store.list(scoped, { limit, offset })) {
      remaining -= chunk.length;
      yield chunk;
    }
    offset = 0;
  }
}
