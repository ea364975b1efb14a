import crypto from 'node:crypto';

/**
 * Entity tags for conditional GET. A list's tag is weak: it names the glossary's revision and
 * the query, not the bytes. A term's tag is strong: a hash of the exact JSON body.
 */

function digest(text: string): string {
  return crypto.hash('sha1', text, 'base64url').slice(0, 22);
}

export function listEtag(revision: string, query: Record<string, unknown>): string {
  return `W/"${revision}-${digest(JSON.stringify(query))}"`;
}

export function bodyEtag(body: string): string {
  return `"${digest(body)}"`;
}

/**
 * RFC 9110 If-None-Match: `*` matches any current representation; otherwise a comma-separated
 * list of tags compared weakly (a `W/` prefix on either side is ignored).
 */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = stripWeak(etag);
  return (header.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => stripWeak(tag) === opaque);
}

function stripWeak(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}

/**
 * RFC 9110 If-Match: `*` matches any current representation (the caller knows there is one);
 * otherwise a comma-separated list of tags compared strongly: a weak tag (`W/`) never matches.
 */
export function ifMatch(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return (header.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => tag === etag);
}
