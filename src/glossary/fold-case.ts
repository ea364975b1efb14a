/**
 * Unicode case folding for search: `über` finds `Über`, `strasse` finds `Straße`. Upper-casing
 * first applies the full (one-to-many) mappings such as ß → SS and ﬁ → FI, then lower-casing
 * brings everything to one case, as Python's `str.casefold()` does for text of this kind.
 * Lower-casing picks the final sigma ς by context, so it is folded to σ afterwards: otherwise
 * `ΟΣ` would not be found inside `ΟΣΤ`. The stored term and the pattern are folded alike.
 */
export function foldCase(text: string): string {
  return text.toUpperCase().toLowerCase().replaceAll('ς', 'σ');
}
