import {
  EMAIL,
  hideBareUrls,
  hideMatches,
  indentOf,
  type Lines,
  linesOf,
  MaskBuilder,
  type Masker,
} from './mask.ts';

/**
 * reStructuredText's prose, read line by line as docutils reads its blocks (no maintained
 * JavaScript parser gives places): paragraphs, section titles, list items, definitions, table
 * cells, and the content of admonitions and other prose directives (`note`, `warning`,
 * `glossary`, `list-table`, ...). Not prose: literal blocks (after `::`), doctest blocks,
 * comments, hyperlink targets, substitution definitions, every other directive with its content
 * (`code-block`, `literalinclude`, `raw`, `math`, `image`, `toctree`, ...), directive options,
 * section adornments and table borders; inline, ``literals``, code-like roles (`:code:`,
 * `:file:`, `:py:func:`, ...), link targets (`<url>`), substitution and footnote references,
 * field names and bare URLs.
 */
export const maskRst: Masker = Object.assign(
  (source: string) => {
    const mask = new MaskBuilder(source);
    const lines = linesOf(source);
    body(mask, lines, 0, lines.text.length);
    return mask.build();
  },
  { keepFromFix: tables },
);

/**
 * The grid and simple tables: their columns are aligned by character, so a replacement of
 * another length would make docutils refuse the table ("Malformed table").
 */
function tables(source: string): number[] {
  const { text, start, end } = linesOf(source);
  const ranges: number[] = [];
  let i = 0;
  while (i < text.length) {
    const line = text[i] as string;
    let last = -1;
    if (GRID_BORDER.test(line)) {
      last = i;
      while (last + 1 < text.length && /^\s*[+|]/.test(text[last + 1] as string)) last++;
    } else if (SIMPLE_BORDER.test(line)) {
      // Up to the border that a blank line or the end follows.
      for (let j = i + 1; j < text.length; j++) {
        const after = text[j + 1];
        if (SIMPLE_BORDER.test(text[j] as string) && (after === undefined || after.trim() === '')) {
          last = j;
          break;
        }
      }
    }
    if (last < 0) {
      i++;
      continue;
    }
    ranges.push(start[i] as number, end[last] as number);
    i = last + 1;
  }
  return ranges;
}

/** Directives whose content is prose; the rest (code, includes, images, ...) are hidden whole. */
const PROSE_DIRECTIVES = new Set([
  'attention',
  'caution',
  'danger',
  'error',
  'hint',
  'important',
  'note',
  'tip',
  'warning',
  'admonition',
  'seealso',
  'versionadded',
  'versionchanged',
  'deprecated',
  'topic',
  'sidebar',
  'rubric',
  'epigraph',
  'highlights',
  'pull-quote',
  'compound',
  'container',
  'glossary',
  'only',
  'list-table',
  'table',
  'centered',
  'hlist',
  'tab',
  'tabs',
  'dropdown',
  'card',
  'todo',
]);

/** A bullet or enumerated list item's marker, with its indentation and the space after it. */
const LIST_MARKER = /^\s*(?:[-*+•‣⁃]|\(?(?:\d+|#|[a-zA-Z]|[ivxlcdm]+|[IVXLCDM]+)[.)])\s+/;
const ADORNMENT = /^([!-/:-@[-`{-~])\1+\s*$/;
const EXPLICIT = /^(\s*)\.\.(?:\s|$)/;
const DIRECTIVE = /^(\s*)\.\.\s+(?:\|[^|]+\|\s+)?([\w:-]+)::(?=\s|$)/;
const TARGET = /^\s*\.\.\s+(?:_|\|)/;
const FOOTNOTE = /^(\s*\.\.\s+\[[^\]]+\])/;
const OPTION = /^\s*:[^:\s][^:]*:(?:\s|$)/;
const GRID_BORDER = /^\s*\+[-=+:]+\+\s*$/;
const SIMPLE_BORDER = /^\s*=+(?:\s+=+)+\s*$/;

/** Reads lines `[first, end)` as body elements. */
function body(mask: MaskBuilder, lines: Lines, first: number, end: number): void {
  const { text, start } = lines;
  let i = first;
  while (i < end) {
    const line = text[i] as string;
    const indent = indentOf(line);
    if (indent === Number.POSITIVE_INFINITY) {
      i++;
      continue;
    }
    if (EXPLICIT.test(line)) {
      i = explicit(mask, lines, i, end, indent);
      continue;
    }
    if (ADORNMENT.test(line.trim()) && line.trim().length >= 3) {
      // A section title's over- or underline, or a transition.
      hideLine(mask, lines, i);
      i++;
      continue;
    }
    if (GRID_BORDER.test(line) || SIMPLE_BORDER.test(line)) {
      hideLine(mask, lines, i);
      i++;
      continue;
    }
    // A paragraph-like run of lines: up to a blank line, or a line that starts something else.
    let last = i;
    while (last + 1 < end && indentOf(text[last + 1] as string) !== Number.POSITIVE_INFINITY) {
      const next = text[last + 1] as string;
      if (EXPLICIT.test(next) && indentOf(next) <= indent) break;
      last++;
    }
    if (line.trimStart().startsWith('>>>')) {
      mask.hide(start[i] as number, lines.end[last] as number);
      i = last + 1;
      continue;
    }
    inline(mask, lines, i, last + 1);
    const tail = (text[last] as string).trimEnd();
    i = last + 1;
    if (tail.endsWith('::')) {
      const at = (start[last] as number) + tail.length - 2;
      mask.hide(at, at + 2);
      // The block is indented relative to the text of the paragraph's last line: past a list
      // item's marker ("- text::"), under a definition ("Term" then "   text::").
      const lastLine = text[last] as string;
      const marker = LIST_MARKER.exec(lastLine);
      const textIndent = marker ? (marker[0] as string).length : indentOf(lastLine);
      i = literalBlock(mask, lines, i, end, textIndent);
    }
  }
}

/** Hides the indented block after a `::` paragraph; answers the first line after it. */
function literalBlock(
  mask: MaskBuilder,
  lines: Lines,
  from: number,
  end: number,
  indent: number,
): number {
  const { text } = lines;
  let i = from;
  while (i < end && indentOf(text[i] as string) === Number.POSITIVE_INFINITY) i++;
  if (i >= end) return i;
  const first = text[i] as string;
  if (indentOf(first) > indent) {
    const last = blockEnd(lines, i, end, indent);
    mask.hide(lines.start[i] as number, lines.end[last - 1] as number);
    return last;
  }
  // A quoted literal block: unindented lines that each start with the same punctuation.
  const quote = /^[!-/:-@[-`{-~]/.exec(first.slice(indent))?.[0];
  if (quote === undefined) return i;
  let last = i;
  while (last < end && (text[last] as string).slice(indent).startsWith(quote)) last++;
  mask.hide(lines.start[i] as number, lines.end[last - 1] as number);
  return last;
}

/**
 * The end of the block indented more than `indent` that starts at `from`: the line after its
 * last non-blank line (`from` itself when there is none).
 */
function blockEnd(lines: Lines, from: number, end: number, indent: number): number {
  const { text } = lines;
  let i = from;
  let last = from - 1;
  while (i < end) {
    const width = indentOf(text[i] as string);
    if (width !== Number.POSITIVE_INFINITY) {
      if (width <= indent) break;
      last = i;
    }
    i++;
  }
  return last + 1;
}

/** An explicit markup block (`.. `): a directive, a comment, a target, a footnote. */
function explicit(mask: MaskBuilder, lines: Lines, i: number, end: number, indent: number): number {
  const line = lines.text[i] as string;
  const after = blockEnd(lines, i + 1, end, indent);
  const directive = DIRECTIVE.exec(line);
  const name = directive?.[2]?.toLowerCase().replace(/^[\w-]+:/, '');
  if (directive && name && PROSE_DIRECTIVES.has(name) && !TARGET.test(line)) {
    // The marker is not prose; an admonition's text may start on its line.
    const markerEnd = (lines.start[i] as number) + directive[0].length;
    mask.hide(lines.start[i] as number, markerEnd);
    inline(mask, lines, i, i + 1, markerEnd - (lines.start[i] as number));
    let j = i + 1;
    // Options (`:class: tip`) directly after the marker.
    while (j < after && OPTION.test(lines.text[j] as string)) {
      hideLine(mask, lines, j);
      j++;
    }
    body(mask, lines, j, after);
    return after;
  }
  const footnote = !directive && FOOTNOTE.exec(line);
  if (footnote) {
    const label = (footnote[1] as string).length;
    mask.hide(lines.start[i] as number, (lines.start[i] as number) + label);
    inline(mask, lines, i, i + 1, label);
    body(mask, lines, i + 1, after);
    return after;
  }
  // Comments, targets, substitution definitions, and every other directive: hidden whole.
  mask.hide(lines.start[i] as number, lines.end[after - 1] as number);
  return after;
}

function hideLine(mask: MaskBuilder, lines: Lines, i: number): void {
  mask.hide(lines.start[i] as number, lines.end[i] as number);
}

/** Roles whose text is prose (a target in `<…>` excepted); every other role's text is code-like. */
const PROSE_ROLES = new Set([
  'term',
  'abbr',
  'emphasis',
  'strong',
  'title-reference',
  'title',
  't',
  'sub',
  'subscript',
  'sup',
  'superscript',
  'guilabel',
  'menuselection',
  'dfn',
  'ref',
  'doc',
  'numref',
  'any',
]);
/** Roles that name a target: without an explicit title (`text <target>`), the text is the target. */
const TARGET_ROLES = new Set(['ref', 'doc', 'numref', 'any']);

const LITERAL = /``(?!\s)[\s\S]*?(?<!\s)``/g;
const ROLE = /(?<![\w`]):((?:[\w-]+:)?[\w-]+):`((?:[^`\\]|\\.)*)`/g;
const LINK_TARGET = /<[^<>\s][^<>]*>(?=`_{1,2})/g;
/**
 * A reference whose text is its target's name (`` `web hook`_ ``, `name_`): rewriting it would
 * break the reference, so it is not prose.
 */
const NAMED_REFERENCE = /(?<![\w`])`[^`<>\n]+`_{1,2}(?![\w])|(?<![\w`])\w[\w.+-]*_{1,2}(?![\w`])/g;
const SUBSTITUTION = /(?<![\w|])\|(?!\s)[^|\n]+(?<!\s)\|_{0,2}(?![\w|])/g;
const FOOTNOTE_REFERENCE = /\[(?:#[\w-]*|\*|\d+|[\w.-]+)\]_/g;
const FIELD_NAME = /^(\s*):(?!\s)[^:\n]*(?<!\s):(?=\s|$)/gm;
const LINE_BLOCK = /^(\s*)\|(?=\s|$)/gm;
const TABLE_BAR = /(?<=\s|^)\|(?=\s|$)/gm;

/** The inline markup of lines `[from, to)` (from column `skip` of the first). */
function inline(mask: MaskBuilder, lines: Lines, from: number, to: number, skip = 0): void {
  if (from >= to) return;
  const begin = (lines.start[from] as number) + skip;
  const finish = lines.end[to - 1] as number;
  const text = mask.source.slice(begin, finish);
  hideMatches(mask, LITERAL, begin, finish);
  for (const match of text.matchAll(ROLE)) {
    const role = (match[1] as string).toLowerCase().replace(/^[\w-]+:/, '');
    const at = begin + match.index;
    const whole = match[0].length;
    const content = match[2] as string;
    const contentAt = at + whole - content.length - 1;
    if (!PROSE_ROLES.has(role)) {
      mask.hide(at, at + whole);
      continue;
    }
    mask.hide(at, contentAt);
    mask.hide(at + whole - 1, at + whole);
    const explicitTarget = /<[^<>]*>\s*$/.exec(content);
    if (explicitTarget) mask.hide(contentAt + explicitTarget.index, contentAt + content.length);
    else if (TARGET_ROLES.has(role)) mask.hide(contentAt, contentAt + content.length);
  }
  hideMatches(mask, LINK_TARGET, begin, finish);
  hideMatches(mask, NAMED_REFERENCE, begin, finish);
  hideMatches(mask, SUBSTITUTION, begin, finish);
  hideMatches(mask, FOOTNOTE_REFERENCE, begin, finish);
  hideMatches(mask, FIELD_NAME, begin, finish);
  hideMatches(mask, LINE_BLOCK, begin, finish);
  hideMatches(mask, TABLE_BAR, begin, finish);
  hideMatches(mask, EMAIL, begin, finish);
  hideBareUrls(mask, begin, finish);
}
