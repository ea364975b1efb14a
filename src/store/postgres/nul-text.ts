/**
 * PostgreSQL text cannot hold U+0000, which the contract stores like any other character. In
 * stored text, U+0000 becomes U+0001 'A' and U+0001 becomes U+0001 'B'; nothing else changes,
 * so almost every value reads in the database exactly as sent.
 *
 * Applied to the folded name (`foldCase` output never contains 'A' or 'B', being lower case),
 * the code keeps both things SQLite gives `term_folded`: byte order (the codes are prefix-free
 * and ordered like the characters they stand for, U+0000 < U+0001 < everything else), and
 * literal substring search (a folded pattern, encoded alike, can only match at code
 * boundaries, because 'A' and 'B' never start it and U+0001 never ends it).
 */
export function encodeNul(text: string): string {
  if (!text.includes('\u0000') && !text.includes('\u0001')) return text;
  // U+0001 first, so the codes written for U+0000 are not encoded again.
  return text.replaceAll('\u0001', '\u0001B').replaceAll('\u0000', '\u0001A');
}

export function decodeNul(stored: string): string {
  if (!stored.includes('\u0001')) return stored;
  // Every U+0001 in stored text starts a code; the letter after it says which character.
  const [head, ...codes] = stored.split('\u0001');
  return (
    (head ?? '') +
    codes.map((code) => (code.startsWith('A') ? '\u0000' : '\u0001') + code.slice(1)).join('')
  );
}
