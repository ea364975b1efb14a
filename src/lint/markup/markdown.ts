import { parser as commonMark, GFM } from '@lezer/markdown';
import { MaskBuilder, type Masker } from './mask.ts';

/**
 * Markdown's prose, by a CommonMark parser with GitHub's extensions (tables, task lists,
 * strikethrough, bare-URL autolinks) that gives every node's place: the text of paragraphs,
 * headings, table cells and task items, with emphasis, link text and image descriptions; block
 * quotes and list items are read through. Everything else is not prose: code (fenced, indented,
 * inline), link destinations, titles and reference labels, link reference definitions, autolinks
 * and bare URLs, HTML (blocks, tags, comments: a docs page's HTML is layout, not prose), escapes
 * and entities, and the marks (`#`, `*`, `|`, `[`, ...). A `>` that continues a block quote
 * inside a paragraph, and a hard line break, separate words as a space does.
 *
 * Front matter (YAML between `---` lines, TOML between `+++` lines, at the very start) is not
 * prose; it is blanked before parsing so that it never reads as a heading.
 */
const parser = commonMark.configure(GFM);
/**
 * MDX has no indented code and no HTML: an indented line is a paragraph's, and every `<` opens
 * JSX (whose tags are hidden before parsing).
 */
const mdxParser = commonMark.configure([GFM, { remove: ['IndentedCode', 'HTMLBlock'] }]);

/** Nodes whose text is prose, inline content included. */
const PROSE = new Set([
  'Paragraph',
  'ATXHeading1',
  'ATXHeading2',
  'ATXHeading3',
  'ATXHeading4',
  'ATXHeading5',
  'ATXHeading6',
  'SetextHeading1',
  'SetextHeading2',
  'TableCell',
  'Task',
]);

/** Nodes inside prose that are not prose. */
const NOT_PROSE = new Set([
  'InlineCode',
  'Autolink',
  'URL',
  'LinkTitle',
  'LinkLabel',
  'LinkMark',
  'HTMLTag',
  'Comment',
  'ProcessingInstruction',
  'Escape',
  'Entity',
  'HeaderMark',
  'EmphasisMark',
  'StrikethroughMark',
  'TaskMarker',
  'TableDelimiter',
  'CodeMark',
]);

/** A node of the parsed tree (the type @lezer/common declares, by way of the parser). */
type SyntaxNode = ReturnType<ReturnType<typeof commonMark.parse>['cursor']>['node'];

const CODE_TAG = /^<(\/?)(code|kbd|samp|tt|var|pre)\b[^>]*?(?<!\/)>$/i;

/**
 * A reference link whose text is its label (`[web hook]`, `[web hook][]`): its text names the
 * definition, so it is not prose to rewrite (a fix would break the link).
 */
function isReferenceByText(link: SyntaxNode, text: string): boolean {
  if (link.getChild('URL')) return false;
  const label = link.getChild('LinkLabel');
  return label === null || text.slice(label.from, label.to).trim() === '[]';
}

/** Nodes inside prose that separate words like a space. */
const GAPS = new Set(['QuoteMark', 'HardBreak']);

const FRONT_MATTER =
  /^(?:---[ \t]*\r?\n[\s\S]*?\r?\n(?:---|\.\.\.)|\+\+\+[ \t]*\r?\n[\s\S]*?\r?\n\+\+\+)[ \t]*(?=\r?\n|$)/;

export const maskMarkdown: Masker = (source) =>
  maskOf(parser, source, hiddenRanges(withLineFeeds(source), false));

/**
 * MDX: Markdown whose `import`/`export` statements, `{expressions}` and JSX tags are not prose,
 * while the text between JSX tags is Markdown like the rest.
 */
export const maskMdx: Masker = (source) =>
  maskOf(mdxParser, source, hiddenRanges(withLineFeeds(source), true));

/** A lone carriage return ends a line (CommonMark): what is parsed has a line feed there. */
function withLineFeeds(source: string): string {
  return source.includes('\r') ? source.replace(/\r(?!\n)/g, '\n') : source;
}

function maskOf(markdown: typeof parser, source: string, hidden: number[]): string {
  const lineFeeds = withLineFeeds(source);
  const parsed = defused(hidden.length === 0 ? lineFeeds : blanked(lineFeeds, hidden));
  const mask = new MaskBuilder(source, { startHidden: true });
  const cursor = markdown.parse(parsed).cursor();
  // Depth-first; `inProse` counts the PROSE nodes we are inside.
  let inProse = 0;
  let codeTag: { name: string; from: number } | undefined;
  const stack: boolean[] = [];
  for (;;) {
    const { name, from, to } = cursor;
    let entered = false;
    if (PROSE.has(name)) {
      mask.reveal(from, to);
      inProse++;
      entered = true;
    } else if (inProse > 0 && NOT_PROSE.has(name)) {
      mask.hide(from, to);
      if (name === 'HTMLTag') {
        // <code>, <kbd>, <samp>, <tt>, <var> and <pre> hold code: hidden to their closing tag.
        const tag = CODE_TAG.exec(parsed.slice(from, to));
        if (tag?.[1] === '' && tag[2]) codeTag = { name: tag[2].toLowerCase(), from };
        else if (tag?.[1] === '/' && codeTag && codeTag.name === tag[2]?.toLowerCase()) {
          mask.hide(codeTag.from, to);
          codeTag = undefined;
        }
      }
    } else if (inProse > 0 && name === 'Link' && isReferenceByText(cursor.node, parsed)) {
      mask.hide(from, to);
    } else if (inProse > 0 && GAPS.has(name)) {
      mask.gap(from, to);
    }
    stack.push(entered);
    if (cursor.firstChild()) continue;
    for (;;) {
      if (stack.pop()) inProse--;
      if (cursor.nextSibling()) break;
      if (!cursor.parent()) {
        for (let i = 0; i < hidden.length; i += 2)
          mask.hide(hidden[i] as number, hidden[i + 1] as number);
        return mask.build();
      }
    }
  }
}

/** Brackets nested deeper, and runs of spaces longer, than this are defused (see `defused`). */
const DEEPEST = 32;
const LONG_SPACES = ' '.repeat(DEEPEST);
const NO_BREAK_SPACE = 0xa0;
const DOT = 0x2e;

/**
 * The text to parse, with two inputs that make the parser quadratic made plain: a run of spaces
 * inside a line (it looks for a hard break from each space: 20,000 took 5 s), and brackets
 * nested deeper than DEEPEST within a paragraph (each `]` is matched against every open `[`:
 * 40,000 nested pairs took 8 s). Such a run's spaces but the last two become no-break spaces,
 * and such brackets dots: no link nests that deep, indentation (a line's leading spaces) is
 * kept, and the source and the mask keep what the file has. A hostile file is then read in
 * linear time.
 */
function defused(text: string): string {
  let open = 0;
  for (let at = text.indexOf('['); at !== -1 && open <= DEEPEST; at = text.indexOf('[', at + 1)) {
    open++;
  }
  if (open <= DEEPEST && !text.includes(LONG_SPACES)) return text;
  const codes = Buffer.from(text, 'utf16le');
  const put = (i: number, code: number) => codes.writeUInt16LE(code, i * 2);
  let depth = 0;
  let blankLine = true;
  let lineStart = true;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 10) {
      if (blankLine) depth = 0;
      blankLine = true;
      lineStart = true;
      continue;
    }
    if (code === 32) {
      let end = i;
      while (text.charCodeAt(end) === 32) end++;
      if (!lineStart && end - i > DEEPEST) for (let j = i; j < end - 2; j++) put(j, NO_BREAK_SPACE);
      i = end - 1;
      continue;
    }
    if (code !== 9 && code !== 13) {
      blankLine = false;
      lineStart = false;
    }
    if (code === 0x5b) {
      depth++;
      if (depth > DEEPEST) put(i, DOT);
    } else if (code === 0x5d) {
      if (depth > DEEPEST) put(i, DOT);
      if (depth > 0) depth--;
    }
  }
  return codes.toString('utf16le');
}

/** The source with `[from, to)` ranges blanked (line breaks kept), for the parser. */
function blanked(source: string, ranges: number[]): string {
  let text = '';
  let at = 0;
  for (let i = 0; i < ranges.length; i += 2) {
    const from = ranges[i] as number;
    const to = ranges[i + 1] as number;
    if (from < at) continue;
    text += source.slice(at, from) + source.slice(from, to).replace(/[^\r\n]/g, ' ');
    at = to;
  }
  return text + source.slice(at);
}

/** JSX tags, also across lines; attribute values may hold `>` inside quotes or braces. */
const JSX_TAG =
  /<\/?[A-Za-z][\w.:-]*(?:\s+(?:[^<>{}"']|"[^"]*"|'[^']*'|\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\})*)?\/?>|<>|<\/>/g;
const ESM = /^(?:import|export)\b[^\n]*(?:\n(?![ \t]*\r?\n)[^\n]*)*/gm;

/**
 * Ranges `[from, to)` (flat pairs, in order, not overlapping) that are never prose and must be
 * blanked before parsing: front matter; for MDX also ESM, JSX tags and `{expressions}` (braces
 * balanced within a paragraph: an expression never spans a blank line).
 */
function hiddenRanges(source: string, mdx: boolean): number[] {
  const ranges: [number, number][] = [];
  const front = FRONT_MATTER.exec(source);
  if (front) ranges.push([0, front[0].length]);
  if (mdx) {
    for (const match of source.matchAll(ESM))
      ranges.push([match.index, match.index + match[0].length]);
    for (const match of source.matchAll(JSX_TAG))
      ranges.push([match.index, match.index + match[0].length]);
    for (const [from, to] of expressions(source)) ranges.push([from, to]);
  }
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const flat: number[] = [];
  for (const [from, to] of ranges) {
    const last = flat.length - 1;
    if (last > 0 && from <= (flat[last] as number)) flat[last] = Math.max(flat[last] as number, to);
    else flat.push(from, to);
  }
  return flat;
}

/** MDX `{…}` expressions: balanced braces, not crossing a blank line, outside code fences. */
function* expressions(source: string): Generator<[number, number]> {
  let fence: string | undefined;
  let depth = 0;
  let start = 0;
  let lineStart = 0;
  for (let i = 0; i < source.length; i++) {
    const code = source.charCodeAt(i);
    if (i === lineStart) {
      const line = source.slice(
        i,
        source.indexOf('\n', i) === -1 ? source.length : source.indexOf('\n', i),
      );
      const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (depth === 0 && marker && (fence === undefined || marker.startsWith(fence))) {
        fence = fence === undefined ? marker : undefined;
      } else if (depth > 0 && line.trim() === '') {
        depth = 0;
      }
    }
    if (code === 10) lineStart = i + 1;
    if (fence !== undefined) continue;
    if (code === 0x60) {
      // An inline code span: skip to its closing run of backticks on the same line.
      let run = 1;
      while (source.charCodeAt(i + run) === 0x60) run++;
      const close = source.indexOf('`'.repeat(run), i + run);
      const lineEnd = source.indexOf('\n', i);
      if (depth === 0 && close !== -1 && (lineEnd === -1 || close < lineEnd)) i = close + run - 1;
      continue;
    }
    if (code === 0x7b) {
      if (depth === 0) start = i;
      depth++;
    } else if (code === 0x7d && depth > 0) {
      depth--;
      if (depth === 0) yield [start, i + 1];
    }
  }
}
