import type { ListOptions, TermFilter, TextFilter } from './filters.ts';
import type { Term } from './term.ts';
import type { Ranking, TermStore } from './term-store.ts';

/**
 * A ranked list: the terms matching `filter` and one of the ranking's levels (word-search.ts
 * makes them), best level first, creation order within a level, as far as `page` goes. The
 * levels never overlap, so a page is read level by level with the store's `count` and `list`:
 * a level before the page is counted, not read. A backend may read a first page in one go, or
 * rank at once (its `firstOfLevels` and `rankAtOnce`); the answer is the same.
 */
export async function* rankedTerms(
  store: TermStore,
  filter: TermFilter,
  ranking: Ranking,
  page: Pick<ListOptions, 'limit' | 'offset'>,
): AsyncGenerator<Term[]> {
  const limit = page.limit;
  if ((page.offset ?? 0) === 0 && limit !== undefined) {
    const terms = await store.firstOfLevels?.(filter, ranking, limit);
    if (terms) {
      if (terms.length > 0) yield terms;
      return;
    }
  }
  const atOnce = await store.rankAtOnce?.(filter, ranking, page);
  if (atOnce) {
    yield* atOnce;
    return;
  }
  yield* levelByLevel(store, filter, ranking.levels, page);
}

async function* levelByLevel(
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
