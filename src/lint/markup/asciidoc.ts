import {
  EMAIL,
  hideMatches,
  indentOf,
  type Lines,
  linesOf,
  MaskBuilder,
  type Masker,
} from './mask.ts';

/**
 * AsciiDoc's prose, read line by line as Asciidoctor reads its blocks (no maintained JavaScript
 * parser gives places): paragraphs, section and block titles, list items, table cells,
 * admonitions, and the content of examples, sidebars, quotes and open blocks. Not prose:
 * listing (`----`), literal (`....`), passthrough (`++++`), comment (`////`) and fenced
 * (```` ``` ````) blocks; a paragraph styled `[source]`, `[listing]`, `[literal]`, `[pass]` or
 * `[stem]`; literal (indented) paragraphs; line comments; attribute entries and block
 * attribute lines; directives (`include::`, `ifdef::`, `image::`, ...); inline, `monospace`,
 * `+passthroughs+`, macros' targets (`link:`, `xref:`, `image:`, `kbd:[…]`, `pass:[…]`, ...),
 * cross references' ids, `{attribute}` references, URLs and e-mail addresses; marks.
 */
export const maskAsciidoc: Masker = (source) => {
  const mask = new MaskBuilder(source);
  const lines = linesOf(source);
  blocks(mask, lines);
  return mask.build();
};

/** Delimiter lines of blocks whose content is never prose. */
const VERBATIM = /^(-{4,}|\.{4,}|\+{4,}|\/{4,}|`{3,}[\w+-]*)\s*$/;
/** Delimiter lines of blocks whose content is prose (the lines themselves are not). */
const COMPOUND = /^(={4,}|\*{4,}|_{4,}|--|\|={3,}|!={3,}|,={3,}|:={3,})\s*$/;
const CONTINUATION = /^\+\s*$/;
const ATTRIBUTE_ENTRY = /^:!?[\w][\w-]*!?:(?:\s|$)/;
const BLOCK_ATTRIBUTES = /^\[(?:[^\]\n]*)\]\s*$/;
const VERBATIM_STYLE = /^\[\s*(?:source|listing|literal|pass|stem|latexmath|asciimath)\b/;
const DIRECTIVE = /^(?:include|ifdef|ifndef|ifeval|endif|image|video|audio|toc)::/;
const LINE_COMMENT = /^\/\/(?!\/\/)/;
const SECTION = /^(={1,6}|#{1,6})\s+/;
const BLOCK_TITLE = /^\.(?=[^.\s])/;
/** A list item, whose indentation is not significant (an indented line is otherwise literal). */
const LIST_ITEM = /^\s*(?:[*.-]+|\d+\.|[a-zA-Z]\.|<\d+>)\s|^\s*\S.*?(?::{2,4}|;;)(?:\s|$)/;
const ADMONITION_LABEL = /^(?:NOTE|TIP|IMPORTANT|CAUTION|WARNING):\s/;

function blocks(mask: MaskBuilder, lines: Lines): void {
  const { text, start, end } = lines;
  const count = text.length;
  let verbatimStyle = false;
  let i = 0;
  while (i < count) {
    const line = text[i] as string;
    const hideLine = () => mask.hide(start[i] as number, end[i] as number);
    const verbatim = VERBATIM.exec(line);
    if (verbatim) {
      // Closed by the same delimiter (a fence by any line of the same backticks), else the end.
      const closing = (verbatim[1] as string).startsWith('`')
        ? (verbatim[1] as string).replace(/[^`]/g, '')
        : (verbatim[1] as string);
      let j = i + 1;
      while (j < count && (text[j] as string).trimEnd() !== closing) j++;
      const last = Math.min(j, count - 1);
      mask.hide(start[i] as number, end[last] as number);
      i = last + 1;
      verbatimStyle = false;
      continue;
    }
    if (indentOf(line) === Number.POSITIVE_INFINITY) {
      verbatimStyle = false;
      i++;
      continue;
    }
    if (
      CONTINUATION.test(line) ||
      COMPOUND.test(line) ||
      ATTRIBUTE_ENTRY.test(line) ||
      DIRECTIVE.test(line) ||
      LINE_COMMENT.test(line) ||
      /^\[\[[^\]]*\]\]\s*$/.test(line)
    ) {
      hideLine();
      i++;
      continue;
    }
    if (BLOCK_ATTRIBUTES.test(line)) {
      verbatimStyle = VERBATIM_STYLE.test(line);
      hideLine();
      i++;
      continue;
    }
    // A paragraph: up to a blank line or a delimiter.
    let last = i;
    // A section title is a line of its own.
    while (!SECTION.test(line) && last + 1 < count) {
      const next = text[last + 1] as string;
      if (indentOf(next) === Number.POSITIVE_INFINITY || VERBATIM.test(next) || COMPOUND.test(next))
        break;
      if (BLOCK_ATTRIBUTES.test(next) || LINE_COMMENT.test(next) || ATTRIBUTE_ENTRY.test(next))
        break;
      // A list continuation (`+` alone) ends the paragraph and attaches the next block.
      if (CONTINUATION.test(next)) break;
      last++;
    }
    const literal = verbatimStyle || (/^[ \t]/.test(line) && !LIST_ITEM.test(line));
    verbatimStyle = false;
    if (literal) {
      mask.hide(start[i] as number, end[last] as number);
    } else {
      for (let j = i; j <= last; j++) lineMarks(mask, lines, j);
      inline(mask, start[i] as number, end[last] as number);
    }
    i = last + 1;
  }
}

/** The marks at a prose line's start: section `=`s, a block title's dot, admonition labels. */
function lineMarks(mask: MaskBuilder, lines: Lines, i: number): void {
  const line = lines.text[i] as string;
  const at = lines.start[i] as number;
  const mark = SECTION.exec(line) ?? BLOCK_TITLE.exec(line) ?? ADMONITION_LABEL.exec(line);
  if (mark) mask.hide(at, at + mark[0].length);
  if (LINE_COMMENT.test(line)) mask.hide(at, lines.end[i] as number);
}

const MONOSPACE = /(?<![\w`])`(?!\s)[^`\n]*?(?<!\s)`(?![\w`])|``[^`]+?``/g;
const PASSTHROUGH =
  /\+{3}[\s\S]*?\+{3}|\+\+[^+]+?\+\+|(?<![\w+])\+(?!\s)[^+\n]*?(?<!\s)\+(?![\w+])/g;
/*
 * The macros' targets and texts are bounded (2,000 and 1,000 characters) and a macro starts only
 * where no other could have started just before: a long run of `link:link:…` or `<<a,<<a,…`
 * with no closing bracket is then read once, not again from each of its characters (quadratic:
 * a 140 KB line of them took 7 to 27 s).
 */
/** Macros whose whole text is not prose. */
const CODE_MACRO =
  /(?<![\w:/.-])(?:pass|kbd|btn|stem|latexmath|asciimath|image|anchor|indexterm2?|icon):[^\s[]{0,2000}\[[^\]\n]{0,1000}\]/g;
/** Macros with a target and a prose text in brackets: the target and brackets are hidden. */
const LINK_MACRO =
  /(?<![\w:/.-])(?:link:|xref:|mailto:|(?:https?|ftp|irc|file):\/\/)[^\s[\]]{0,2000}\[/g;
const FOOTNOTE_MACRO = /\bfootnote:(?:[\w-]*)\[/g;
const CROSS_REFERENCE = /<<([^,<>\n]{1,1000})(,[^<>\n]{0,1000})?>>/g;
const ATTRIBUTE_REFERENCE = /\{[\w][\w-]*\}/g;
const BARE_URL =
  /\b(?:(?:https?|ftp|irc|file):\/\/|mailto:|www\.)[^\s<>"'`[\]]*[^\s<>"'`[\].,;:!?)}]/g;
const INLINE_ANCHOR = /\[\[[^\]]*\]\]|\[#[^\]]*\]/g;
const TABLE_CELL = /(?:^|(?<=\s))(?:\d+(?:\.\d+)?[*+])?[<^>]?(?:\.[<^>])?[adehlmsv]?\|/gm;

function inline(mask: MaskBuilder, from: number, to: number): void {
  const text = mask.source.slice(from, to);
  hideMatches(mask, MONOSPACE, from, to);
  hideMatches(mask, PASSTHROUGH, from, to);
  hideMatches(mask, CODE_MACRO, from, to);
  for (const pattern of [LINK_MACRO, FOOTNOTE_MACRO]) {
    for (const match of text.matchAll(pattern)) {
      const at = from + match.index;
      mask.hide(at, at + match[0].length);
      const close = text.indexOf(']', match.index + match[0].length);
      if (close !== -1) mask.hide(from + close, from + close + 1);
    }
  }
  for (const match of text.matchAll(CROSS_REFERENCE)) {
    const at = from + match.index;
    const id = (match[1] as string).length;
    // `<<id,text>>`: the text is prose; `<<id>>` shows the target's title: not this text's.
    if (match[2]) {
      mask.hide(at, at + 2 + id + 1);
      mask.hide(at + match[0].length - 2, at + match[0].length);
    } else {
      mask.hide(at, at + match[0].length);
    }
  }
  hideMatches(mask, ATTRIBUTE_REFERENCE, from, to);
  hideMatches(mask, INLINE_ANCHOR, from, to);
  hideMatches(mask, EMAIL, from, to);
  hideMatches(mask, BARE_URL, from, to);
  hideMatches(mask, TABLE_CELL, from, to);
}
