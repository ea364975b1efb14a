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

export interface EntityTag {
  weak: boolean;
  /** The quoted part, quotes included: `"abc"`. */
  opaque: string;
}

const OWS = /[ \t]*/y;
/** entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE; etagc = %x21 / %x23-7E / obs-text (RFC 9110 §8.8.3) */
const ENTITY_TAG = /(W\/)?("[\x21\x23-\x7e\x80-\xff]*")/y;

function skipSpace(text: string, at: number): number {
  OWS.lastIndex = at;
  OWS.exec(text);
  return OWS.lastIndex;
}

/**
 * The value of If-Match or If-None-Match (RFC 9110 §13.1.1-2): `*`, the entity tags of a
 * `1#entity-tag` list (optional whitespace around the commas, empty elements ignored as
 * §5.6.1.2 asks), or null when it is neither: `w/"x"`, `"a""b"`, `x"y"z` are malformed.
 */
export function parseEntityTags(value: string): '*' | EntityTag[] | null {
  const text = value.replace(/^[ \t]+|[ \t]+$/g, '');
  if (text === '*') return '*';
  const tags: EntityTag[] = [];
  let at = 0;
  while (at < text.length) {
    if (text[at] === ',') {
      at = skipSpace(text, at + 1);
      continue;
    }
    ENTITY_TAG.lastIndex = at;
    const tag = ENTITY_TAG.exec(text);
    if (tag === null) return null;
    tags.push({ weak: tag[1] !== undefined, opaque: tag[2] as string });
    at = skipSpace(text, ENTITY_TAG.lastIndex);
    if (at < text.length && text[at] !== ',') return null;
  }
  return tags.length > 0 ? tags : null;
}

/**
 * RFC 9110 If-None-Match: `*` matches any current representation; otherwise a list of tags
 * compared weakly (a `W/` prefix on either side is ignored). A malformed value is ignored, as
 * §13.1.2 allows: it matches nothing, so the answer is the full 200, never a 304 that a
 * garbled header did not ask for.
 */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  const tags = parseEntityTags(header);
  if (tags === '*') return true;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  return tags?.some((tag) => tag.opaque === opaque) ?? false;
}

/**
 * RFC 9110 If-Match: `*` matches any current representation (the caller knows there is one);
 * otherwise a list of tags compared strongly: a weak tag (`W/`) never matches. A malformed
 * value matches nothing, so the change is refused (412) rather than made on a guess.
 */
export function ifMatch(header: string, etag: string): boolean {
  const tags = parseEntityTags(header);
  if (tags === '*') return true;
  return tags?.some((tag) => !tag.weak && tag.opaque === etag) ?? false;
}
