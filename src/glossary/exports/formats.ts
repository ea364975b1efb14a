import { csv } from './csv.ts';
import type { ExportFormat, FileFormat, TermSource } from './format.ts';
import { hugoFormat } from './hugo.ts';
import { json } from './json.ts';
import { toMarkdown } from './markdown.ts';
import { mkdocsFormat } from './mkdocs.ts';
import { allTerms } from './names.ts';
import { sphinxFormat } from './sphinx.ts';
import { tbxFormat } from './tbx.ts';
import { tbxV2Format } from './tbx-v2.ts';
import { textlintFormat } from './textlint.ts';
import { valeFormat } from './vale.ts';

/**
 * Every export format by name (terminology-and-docs.md, "Exports"), in the order `--help`, the
 * OpenAPI document and the docs list them. `GET /exports/{format}` and `glossary export` both
 * read this one registry.
 */

/** JSON as GET /terms gives it, written as the terms are read. */
const jsonFormat: FileFormat = {
  kind: 'file',
  name: 'json',
  description: 'The terms as a JSON array, one a line, as GET /terms gives them; re-importable.',
  mediaType: 'application/json',
  fileName: 'glossary.json',
  async *render(source: TermSource) {
    yield json.start();
    let first = true;
    for await (const batch of source()) {
      let out = '';
      for (const term of batch) {
        out += json.term(term, first);
        first = false;
      }
      if (out) yield out;
    }
    yield json.end(first);
  },
};

const csvFormat: FileFormat = {
  kind: 'file',
  name: 'csv',
  description:
    "CSV (RFC 4180): id, term, definition, category, see_also (ids joined by `;`); cells a spreadsheet would read as a formula start with `'`.",
  mediaType: 'text/csv; charset=utf-8',
  fileName: 'glossary.csv',
  async *render(source: TermSource) {
    yield csv.start();
    for await (const batch of source()) {
      let out = '';
      for (const term of batch) out += csv.term(term);
      if (out) yield out;
    }
  },
};

const markdownFormat: FileFormat = {
  kind: 'file',
  name: 'md',
  description:
    'A Markdown glossary: a section per category, terms sorted by name, an anchor per term, see-also links.',
  mediaType: 'text/markdown; charset=utf-8',
  fileName: 'glossary.md',
  async *render(source: TermSource) {
    // Sorted by name within each category: it needs every term before it writes.
    yield toMarkdown(await allTerms(source));
  },
};

const FORMATS: readonly ExportFormat[] = [
  jsonFormat,
  csvFormat,
  markdownFormat,
  tbxFormat,
  tbxV2Format,
  valeFormat,
  textlintFormat,
  mkdocsFormat,
  sphinxFormat,
  hugoFormat,
];

/** The formats' names, in the registry's order. */
export const EXPORT_FORMATS: readonly string[] = FORMATS.map((format) => format.name);

const byName = new Map(FORMATS.map((format) => [format.name, format]));

/** The format of that name, or undefined. */
export function exportFormat(name: string): ExportFormat | undefined {
  return byName.get(name);
}

/** Every format, in the registry's order. */
export function exportFormats(): readonly ExportFormat[] {
  return FORMATS;
}
