/**
 * The little English `glossary lint` needs: the regular plural of a name (its last word takes
 * the ending) and a replacement cased as the text it replaces.
 */

const ENDS_IN_LETTER = /\p{L}$/u;
const SIBILANT = /(?:s|x|z|ch|sh)$/i;
const CONSONANT_Y = /[^aeiou]y$/i;
const ALL_CAPS = /^[^\p{Ll}]*\p{Lu}[^\p{Ll}]*\p{Lu}[^\p{Ll}]*$/u;

/**
 * The regular plural of `name`, or undefined when it has none the rules can give (it ends in a
 * digit or a sign, like "C++" or "OAuth 2"). "web hook" → "web hooks", "cache" → "caches",
 * "proxy" → "proxies", "patch" → "patches", "API" → "APIs". Irregular plurals are not guessed.
 */
export function pluralOf(name: string): string | undefined {
  if (!ENDS_IN_LETTER.test(name)) return undefined;
  const upper = name.length > 1 && ALL_CAPS.test(name);
  if (upper) return `${name}s`;
  if (SIBILANT.test(name)) return `${name}es`;
  if (CONSONANT_Y.test(name)) return `${name.slice(0, -1)}ies`;
  return `${name}s`;
}

/**
 * `use` cased as `found` was: a capital first letter is kept ("Web hook" → "Webhook"), and text
 * in capitals stays in capitals ("WEB HOOK" → "WEBHOOK") when `use` is all lower case. A name
 * with its own capitals ("GitHub") keeps them.
 */
export function casedAs(use: string, found: string): string {
  if (found.length > 1 && ALL_CAPS.test(found) && use === use.toLowerCase()) {
    return use.toUpperCase();
  }
  const first = found.codePointAt(0);
  if (first === undefined) return use;
  const initial = String.fromCodePoint(first);
  if (initial === initial.toLowerCase()) return use;
  const useFirst = use.codePointAt(0);
  if (useFirst === undefined) return use;
  const useInitial = String.fromCodePoint(useFirst);
  return useInitial.toUpperCase() + use.slice(useInitial.length);
}
