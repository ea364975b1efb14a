/**
 * Unicode case folding for search: `über` finds `Über`, `strasse` finds `Straße`. Upper-casing
 * first applies the full (one-to-many) mappings such as ß → SS and ﬁ → FI, then lower-casing
 * brings everything to one case, as Python's `str.casefold()` does for text of this kind.
 * Lower-casing picks the final sigma ς by context, so it is folded to σ afterwards: otherwise
 * `ΟΣ` would not be found inside `ΟΣΤ`. Capital sharp s ẞ (U+1E9E) upper-cases to itself and
 * lower-cases to ß, which the upper-casing has already passed: so a ß left at the end came from
 * ẞ, and becomes ss as Python's casefold makes it.
 */
export function caseFold(text: string): string {
  if (isAscii(text)) return text.toLowerCase();
  return text.toUpperCase().toLowerCase().replaceAll('ς', 'σ').replaceAll('ß', 'ss');
}

/** Any UTF-16 unit beyond ASCII (surrogates included). */
const BEYOND_ASCII = /[\u0080-\uffff]/;

/**
 * Whether the text is ASCII only, as most of a glossary is: then every fold here is its
 * lower case (no ASCII character has a decomposition, a mark or a one-to-many case mapping),
 * which costs a tenth of the general path; a term's import folds its texts several times.
 */
export function isAscii(text: string): boolean {
  return !BEYOND_ASCII.test(text);
}

/**
 * The folded name `search` compares: case-folded text in Unicode's composed form (NFC), before
 * and after folding (a case mapping may decompose: ǰ upper-cases to J and a combining caron).
 * Canonically equivalent texts fold alike, so a name typed with a combining accent (NFD `Café`)
 * and one typed with the precomposed letter find each other. The stored term and the pattern
 * are folded alike; the search stays a literal substring of that folded text.
 */
export function foldCase(text: string): string {
  if (isAscii(text)) return text.toLowerCase();
  return caseFold(text.normalize('NFC')).normalize('NFC');
}
