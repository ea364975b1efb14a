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
  if (!/[\u0000\u0001]/.test(text)) return text;
  return text.replace(/[\u0000\u0001]/g, (char) => (char === '\u0000' ? '\u0001A' : '\u0001B'));
}

export function decodeNul(stored: string): string {
  if (!stored.includes('\u0001')) return stored;
  return stored.replace(/\u0001[AB]/g, (code) => (code === '\u0001A' ? '\u0000' : '\u0001'));
}
