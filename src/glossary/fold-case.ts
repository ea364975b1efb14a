/**
 * Unicode case folding for search: `über` finds `Über`, `strasse` finds `Straße`. Upper-casing
 * first applies the full (one-to-many) mappings such as ß → SS and ﬁ → FI, then lower-casing
 * brings everything to one case, as Python's `str.casefold()` does for text of this kind.
 * Lower-casing picks the final sigma ς by context, so it is folded to σ afterwards: otherwise
 * `ΟΣ` would not be found inside `ΟΣΤ`. Capital sharp s ẞ (U+1E9E) upper-cases to itself and
 * lower-cases to ß, which the upper-casing has already passed: so a ß left at the end came from
 * ẞ, and becomes ss as Python's casefold makes it. The stored term and the pattern are folded
 * alike.
 */
export function foldCase(text: string): string {
  return text.toUpperCase().toLowerCase().replaceAll('ς', 'σ').replaceAll('ß', 'ss');
}
