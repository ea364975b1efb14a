/**
 * The RFC 8288 `Link` header of a page. The targets are relative references to the same path
 * with the same query, only the paging parameters changed, so every other parameter (filters,
 * sort, limit) is kept.
 */

/** The request's URL with `changes` made to its query (`undefined` removes a parameter). */
function sameQuery(url: string, changes: Record<string, number | undefined>): string {
  const [path = '', query = ''] = url.split('?', 2);
  const params = new URLSearchParams(query);
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) params.delete(name);
    else params.set(name, String(value));
  }
  return `<${path}?${params}>`;
}

/** A list's links: `next` when terms remain after the page, `prev` when it does not start at the first. */
export function pageLinks(url: string, page: { offset: number; limit: number; total: number }) {
  const links: string[] = [];
  if (page.offset + page.limit < page.total) {
    links.push(`${sameQuery(url, { offset: page.offset + page.limit })}; rel="next"`);
  }
  if (page.offset > 0) {
    const offset = Math.max(0, Math.min(page.offset, page.total) - page.limit);
    links.push(`${sameQuery(url, { offset })}; rel="prev"`);
  }
  return links.join(', ');
}

/**
 * A history page's links. `next` carries a cursor, not an offset: the entries older than the
 * page's last revision. New entries arrive at the head of a history (newest first), so an
 * offset would repeat entries while the term is being changed; the cursor never does. `prev`
 * is the page before this one's offset, as for a list.
 */
export function historyLinks(
  url: string,
  page: { offset: number; limit: number; total: number; last: number | undefined },
) {
  const links: string[] = [];
  if (page.last !== undefined && page.offset + page.limit < page.total) {
    links.push(`${sameQuery(url, { offset: undefined, before: page.last })}; rel="next"`);
  }
  if (page.offset > 0) {
    const offset = Math.max(0, Math.min(page.offset, page.total) - page.limit);
    links.push(`${sameQuery(url, { offset })}; rel="prev"`);
  }
  return links.join(', ');
}
