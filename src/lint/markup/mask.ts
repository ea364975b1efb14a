/**
 * What `glossary lint` may read of a file: its prose. A markup's reader answers a *mask*: a
 * string as long as the source (UTF-16 code units), so every offset in it is the source's own,
 * in which each code unit is one of
 *
 * - the source's own code unit: prose, where names are looked for;
 * - `HIDDEN` (U+0000): not prose (code, a URL, a link target, front matter, a comment, markup);
 *   a hard boundary that no match crosses or touches;
 * - a space: markup inside a run of prose that separates words as a space does, such as
 *   a block quote's `>` on a paragraph's second line, so a two-word name broken across those
 *   lines is still found.
 */
export const HIDDEN = '\u0000';

/**
 * A markup reader: the source in, its mask out. `keepFromFix`, when a markup has places where
 * prose may not change length (a reStructuredText table's cells are aligned by column), gives
 * those ranges `[from, to)` as flat pairs: findings there are reported, and `--fix` leaves them.
 */
export type Masker = ((source: string) => string) & {
  keepFromFix?: (source: string) => number[];
};

/**
 * Builds a mask from a source: everything starts as prose (or, with `startHidden`, as not
 * prose); `reveal`, `hide` and `gap` mark ranges `[from, to)`. The latest call wins where ranges
 * overlap.
 */
export class MaskBuilder {
  private readonly codes: Uint16Array;

  constructor(
    readonly source: string,
    { startHidden = false } = {},
  ) {
    this.codes = new Uint16Array(source.length);
    if (!startHidden) this.reveal(0, source.length);
  }

  /** Marks `[from, to)` as prose. */
  reveal(from: number, to: number): this {
    const end = Math.min(to, this.source.length);
    for (let i = Math.max(0, from); i < end; i++) this.codes[i] = this.source.charCodeAt(i);
    return this;
  }

  /** Marks `[from, to)` as not prose. */
  hide(from: number, to: number): this {
    this.codes.fill(0, Math.max(0, from), Math.min(to, this.source.length));
    return this;
  }

  /** Marks `[from, to)` as markup that separates words like a space. Line breaks stay. */
  gap(from: number, to: number): this {
    const end = Math.min(to, this.source.length);
    for (let i = Math.max(0, from); i < end; i++) if (this.codes[i] !== 10) this.codes[i] = 32;
    return this;
  }

  /** The mask. */
  build(): string {
    // The code units as UTF-16LE bytes, decoded whole: far faster than a string built by parts.
    return Buffer.from(this.codes.buffer, this.codes.byteOffset, this.codes.byteLength).toString(
      'utf16le',
    );
  }
}

/**
 * Bare web addresses in prose (`https://…`, `http://…`, `ftp://…`, `mailto:…`, `www.…`): what
 * Markdown's GFM autolinks, reStructuredText's standalone hyperlinks and AsciiDoc's bare URLs
 * make links. A trailing `.`, `,`, `;`, `:`, `!`, `?` or closing bracket ends a sentence, not
 * the address.
 */
const BARE_URL = /\b(?:(?:https?|ftp|file):\/\/|mailto:|www\.)[^\s<>"'`]*[^\s<>"'`.,;:!?)\]}]/giu;

/**
 * E-mail addresses. The look-behind lets a match start only where a run of address characters
 * starts: without it, a long run with no `@` (`+a+a+a…`) is scanned again from each of its
 * characters, quadratic in its length (a 100 KB line took 30 s).
 */
export const EMAIL = /(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;

/** Hides the bare web addresses of `source` (or of `[from, to)` of it). */
export function hideBareUrls(mask: MaskBuilder, from = 0, to = mask.source.length): void {
  const text = mask.source.slice(from, to);
  for (const match of text.matchAll(BARE_URL)) {
    mask.hide(from + match.index, from + match.index + match[0].length);
  }
}

/**
 * A source's lines, each ended by `\n`, `\r\n` or `\r` (as CommonMark and the columns of
 * findings count them): `start[i]` to `end[i]` (the line break excluded), and their text.
 */
export interface Lines {
  start: number[];
  end: number[];
  text: string[];
}

export function linesOf(source: string): Lines {
  const lines: Lines = { start: [], end: [], text: [] };
  const breaks = /\r\n?|\n/g;
  let from = 0;
  for (;;) {
    const found = breaks.exec(source);
    const end = found ? found.index : source.length;
    lines.start.push(from);
    lines.end.push(end);
    lines.text.push(source.slice(from, end));
    if (!found) return lines;
    from = end + found[0].length;
  }
}

/** The indentation of a line, a tab counting to the next multiple of 8 (as docutils counts). */
export function indentOf(line: string): number {
  let width = 0;
  for (const char of line) {
    if (char === ' ') width++;
    else if (char === '\t') width = (Math.floor(width / 8) + 1) * 8;
    else return width;
  }
  return Number.POSITIVE_INFINITY;
}

/** Hides each match of `pattern` (global) in `[from, to)` of the source. */
export function hideMatches(
  mask: MaskBuilder,
  pattern: RegExp,
  from = 0,
  to = mask.source.length,
): void {
  const text = mask.source.slice(from, to);
  for (const match of text.matchAll(pattern)) {
    mask.hide(from + match.index, from + match.index + match[0].length);
  }
}
