import type { Masker } from './markup/mask.ts';
import type { NameMatch, NameMatcher } from './name-matcher.ts';

/** A name to avoid in a file, where `glossary lint` reports it; lines and columns from 1. */
export interface Finding {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  /**
   * The text as the file has it, white space runs read as one space (and markup between the
   * words, such as a block quote's `>`, as white space).
   */
  found: string;
  /** What to write instead. */
  use: string;
  /** The id of the term whose name `use` is. */
  term: number;
}

/** One file's findings, and its text with every finding replaced (for `--fix`). */
export interface FileResult {
  findings: Finding[];
  fixed: string;
  /** How many findings `fixed` replaced (those where a fix is kept out are not). */
  fixes: number;
}

/**
 * Lints one file's text. Columns count Unicode code points (a tab is one), as SARIF's
 * `unicodeCodePoints` does; a byte order mark is not a column. Lines end at `\n`, `\r\n` or `\r`.
 */
export function lintText(
  file: string,
  source: string,
  mask: Masker,
  matcher: NameMatcher,
): FileResult {
  const masked = mask(source);
  const matches = matcher.find(masked);
  if (matches.length === 0) return { findings: [], fixed: source, fixes: 0 };
  const position = positions(source);
  const findings = matches.map((match) => {
    const [line, column] = position(match.start);
    const [endLine, endColumn] = position(match.end);
    return {
      file,
      line,
      column,
      endLine,
      endColumn,
      found: masked.slice(match.start, match.end).replace(/\s+/gu, ' '),
      use: match.use,
      term: match.term,
    };
  });
  return { findings, ...applied(source, matches, mask.keepFromFix?.(source) ?? []) };
}

/** The source with each match replaced, but those inside a `keep` range (flat pairs, in order). */
function applied(
  source: string,
  matches: readonly NameMatch[],
  keep: readonly number[],
): { fixed: string; fixes: number } {
  let text = '';
  let fixes = 0;
  let from = 0;
  let range = 0;
  for (const match of matches) {
    while (range < keep.length && (keep[range + 1] as number) <= match.start) range += 2;
    if (range < keep.length && (keep[range] as number) < match.end) continue;
    text += source.slice(from, match.start) + match.use;
    from = match.end;
    fixes++;
  }
  return { fixed: text + source.slice(from), fixes };
}

/**
 * Line and column of offsets given in increasing order: one walk over the text, resumed from
 * the previous offset.
 */
function positions(source: string): (offset: number) => [number, number] {
  let at = source.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let column = 1;
  return (offset) => {
    while (at < offset) {
      const code = source.charCodeAt(at);
      if (code === 10 || (code === 13 && source.charCodeAt(at + 1) !== 10)) {
        line++;
        column = 1;
      } else if (code !== 13 && !(code >= 0xdc00 && code <= 0xdfff)) {
        column++;
      }
      at++;
    }
    return [line, column];
  };
}
