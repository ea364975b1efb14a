import type { View } from './api.ts';

/**
 * The view lives in the address (`?q=&category=&from=&offset=&term=`), so a reload or a shared
 * link shows the same list and the same term. Typing replaces the entry; choosing a term or a
 * page adds one, so Back goes back to it.
 */

export interface PageState extends View {
  /** The id of the term shown beside the list, or null. */
  term: number | null;
}

export function readState(location: Location = window.location): PageState {
  const params = new URLSearchParams(location.search);
  const offset = Number(params.get('offset') ?? 0);
  // Links shared before the view moved into the query (`/#/terms/42`) still open their term.
  const old = /^#\/terms\/(-?\d+)$/.exec(location.hash)?.[1];
  const term = params.get('term') ?? old ?? null;
  return {
    q: params.get('q') ?? '',
    category: params.get('category') ?? '',
    from: params.get('from') ?? '',
    offset: Number.isSafeInteger(offset) && offset > 0 ? offset : 0,
    term: term !== null && /^-?\d+$/.test(term) ? Number(term) : null,
  };
}

export function stateUrl(state: PageState): string {
  const params = new URLSearchParams();
  if (state.q) params.set('q', state.q);
  if (state.category) params.set('category', state.category);
  if (state.from && !state.q) params.set('from', state.from);
  if (state.offset > 0) params.set('offset', String(state.offset));
  if (state.term !== null) params.set('term', String(state.term));
  const query = params.toString();
  return `${window.location.pathname}${query ? `?${query}` : ''}`;
}

export function writeState(state: PageState, how: 'push' | 'replace'): void {
  const url = stateUrl(state);
  if (url === `${window.location.pathname}${window.location.search}`) return;
  if (how === 'push') window.history.pushState(null, '', url);
  else window.history.replaceState(null, '', url);
}
