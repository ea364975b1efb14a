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
 * `use` cased as `found` was, against how the name to avoid is written (`entry`): a capital
 * first letter the entry does not have is kept ("Web hook" → "Webhook"), and capitals
 * throughout, where the entry has small letters, stay capitals ("WEB HOOK" → "WEBHOOK") when
 * `use` is all small letters. Text written as the entry is gets `use` as it is written, so a
 * name with its own capitals ("GitHub") keeps them and an entry in capitals ("CV") does not
 * make its replacement shout.
 */
export function casedAs(use: string, found: string, entry: string): string {
  if (found === entry) return use;
  if (
    found.length > 1 &&
    ALL_CAPS.test(found) &&
    !ALL_CAPS.test(entry) &&
    use === use.toLowerCase()
  ) {
    return use.toUpperCase();
  }
  const initial = firstOf(found);
  if (initial === initial.toLowerCase() || firstOf(entry) === initial) return use;
  const useInitial = firstOf(use);
  return useInitial.toUpperCase() + use.slice(useInitial.length);
}

function firstOf(text: string): string {
  const code = text.codePointAt(0);
  return code === undefined ? '' : String.fromCodePoint(code);
}
