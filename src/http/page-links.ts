/**
 * The RFC 8288 `Link` header of a page: `next` when terms remain after it, `prev` when it does
 * not start at the first term. The targets are relative references to the same path with the
 * same query, only `offset` changed, so every other parameter (filters, sort, limit) is kept.
 */
export function pageLinks(url: string, page: { offset: number; limit: number; total: number }) {
  const [path = '', query = ''] = url.split('?', 2);
  const at = (offset: number) => {
    const params = new URLSearchParams(query);
    params.set('offset', String(offset));
    return `<${path}?${params}>`;
  };
  const links: string[] = [];
  if (page.offset + page.limit < page.total)
    links.push(`${at(page.offset + page.limit)}; rel="next"`);
  if (page.offset > 0) {
    links.push(`${at(Math.max(0, Math.min(page.offset, page.total) - page.limit))}; rel="prev"`);
  }
  return links.join(', ');
}
