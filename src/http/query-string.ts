import querystring from 'node:querystring';

/**
 * The query string as a browser's `URLSearchParams` reads it (the WHATWG URL standard, which
 * Python's `parse_qs`, and so the original service, follows too): `+` is a space, every valid
 * `%XX` escape is decoded as UTF-8, a `%` without two hex digits after it stands for itself, and
 * bytes that are not UTF-8 become U+FFFD. A hand-typed `?search=100%` finds `100%`, and the
 * `Link` of a page (built with `URLSearchParams`) names the filter that page was read with.
 *
 * Fastify's default parser keeps a whole value undecoded when one escape in it is broken
 * (`a%20b%ZZ` stayed `a%20b%ZZ`, not `a b%ZZ`). A broken path is different: it names no
 * resource and is answered 400 (see `errors.badUrl`). Node's parser costs a fraction of a
 * microsecond more a query than Fastify's; `maxKeys: 0` keeps every parameter, as Fastify's does, so a repeated
 * filter is always seen.
 */
export function parseQueryString(query: string): Record<string, string | string[]> {
  return querystring.parse(query, '&', '=', { maxKeys: 0 }) as Record<string, string | string[]>;
}
