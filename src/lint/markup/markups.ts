import path from 'node:path';
import type { Masker } from './mask.ts';

/**
 * The markups `glossary lint` reads, by file extension. Each reader is loaded when a file of its
 * kind first comes, so a tree of plain text never loads the Markdown parser.
 */
const READERS: Record<string, () => Promise<Masker>> = {
  markdown: async () => (await import('./markdown.ts')).maskMarkdown,
  mdx: async () => (await import('./markdown.ts')).maskMdx,
  rst: async () => (await import('./rst.ts')).maskRst,
  asciidoc: async () => (await import('./asciidoc.ts')).maskAsciidoc,
  plain: async () => (await import('./plain.ts')).maskPlain,
};

export type Markup = keyof typeof READERS;

const EXTENSIONS: Record<string, Markup> = {
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.mdown': 'markdown',
  '.mkd': 'markdown',
  '.mdx': 'mdx',
  '.rst': 'rst',
  '.rest': 'rst',
  '.adoc': 'asciidoc',
  '.asciidoc': 'asciidoc',
  '.asc': 'asciidoc',
  '.txt': 'plain',
  '.text': 'plain',
};

/** The markup of a file by its extension; undefined for one `glossary lint` does not read. */
export function markupOf(file: string): Markup | undefined {
  return EXTENSIONS[path.extname(file).toLowerCase()];
}

const loaded = new Map<Markup, Promise<Masker>>();

/** The reader of a markup. */
export function readerOf(markup: Markup): Promise<Masker> {
  let reader = loaded.get(markup);
  if (!reader) {
    reader = (READERS[markup] as () => Promise<Masker>)();
    loaded.set(markup, reader);
  }
  return reader;
}
