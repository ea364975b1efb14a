import type { TermFilter } from './filters.ts';
import { rankedTerms } from './ranking.ts';
import type { Category, SortKey, Term } from './term.ts';
import type { TermStore } from './term-store.ts';
import { parseQuery, rankingOf } from './word-search.ts';

/**
 * Listing the glossary (GET /terms): the filters (`category`, `search`, `links_to`), paging and
 * order (`limit`, `offset`, `sort`, `from`), and `q`, ranked unless `sort` is given (then it
 * only filters). The HTTP layer keeps what is HTTP's: the ETag, `Link`, the JSON body.
 */
export interface ListQuery {
  category?: Category | undefined;
  search?: string | undefined;
  sort?: SortKey | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
  from?: string | undefined;
  q?: string | undefined;
  /** Only the terms that link to this id (their `see_also` holds it). */
  links_to?: number | undefined;
}

export interface Listing {
  /** The terms, in chunks, read lazily. */
  terms: AsyncIterable<Term[]>;
  /** With `limit`: how many terms match in all. */
  total?: number | undefined;
}

/** `from` is a place in the alphabet: it needs the alphabet's order. */
export class FromNeedsNameOrder extends Error {
  constructor(readonly from: string) {
    super('from needs sort=term or sort=-term');
    this.name = 'FromNeedsNameOrder';
  }
}

/**
 * The filter a query asks for, checked: the first step of `listTerms`, apart so the caller can
 * refuse a query before it reads anything.
 */
export function listFilter(query: ListQuery): TermFilter {
  const { category, search, sort, from, links_to } = query;
  if (from !== undefined && sort !== 'term' && sort !== '-term') throw new FromNeedsNameOrder(from);
  return {
    category,
    search: search || undefined,
    range: from === undefined ? undefined : { from, before: sort === '-term' },
    linksTo: links_to,
  };
}

export async function listTerms(store: TermStore, query: ListQuery): Promise<Listing> {
  const { sort, limit, offset, q } = query;
  const filter = listFilter(query);
  // `q` with no word in it finds nothing; blank, it is no filter.
  const words = q?.trim() ? await parseQuery(store, q) : undefined;
  if (words === null) return { terms: noTerms(), total: limit === undefined ? undefined : 0 };
  const ranking = words && rankingOf(words);
  if (ranking) filter.text = ranking.matches;
  const total = limit === undefined ? undefined : await store.count(filter);
  const terms =
    ranking && !sort
      ? rankedTerms(store, { ...filter, text: undefined }, ranking, { limit, offset })
      : store.list(filter, { sort, limit, offset });
  return { terms, total };
}

async function* noTerms(): AsyncGenerator<Term[]> {}
