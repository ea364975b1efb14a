import { CATEGORIES, type Term } from '../term.ts';
import type { FolderFile, FolderFormat, TermSource } from './format.ts';
import { allTerms, byName, firstSentence, idOwners, oneLine, textLines } from './names.ts';

/**
 * A folder for MkDocs: `includes/abbreviations.md`, one `*[ALIAS]: Name: first sentence` line per
 * alias, which Python-Markdown's `abbr` extension turns into `<abbr title="...">` wherever the
 * alias is written (appended to every page by pymdownx.snippets' `auto_append`); a glossary page
 * `docs/glossary.md` with an anchor `term-{id}` per term; and a minimal `mkdocs.yml` using both.
 */

const ABBREVIATIONS = 'includes/abbreviations.md';

/**
 * Aliases an abbreviation line cannot hold: `]` ends the alias, and the abbr extension of
 * Python-Markdown before 3.6 puts each character alone in a `[...]` class, where `\` and `^`
 * break the pattern and `[` warns.
 */
const NOT_AN_ABBREVIATION = /[[\]\\^]/;

/** One abbreviation per alias, the earliest term with it (exact spelling) owning it. */
function abbreviations(terms: readonly Term[]): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const term of terms) {
    for (const entry of term.aliases ?? []) {
      const alias = oneLine(entry);
      if (alias === '' || NOT_AN_ABBREVIATION.test(alias) || seen.has(alias)) continue;
      seen.add(alias);
      // The title is an attribute, never Markdown: only kept on one line.
      lines.push(`*[${alias}]: ${oneLine(term.term)}: ${firstSentence(term.definition)}`);
    }
  }
  return lines;
}

/**
 * Python-Markdown's escapable characters get a backslash; what it cannot escape becomes an
 * entity: `<` and `&` (no HTML, no entity of the text's own), `~` (a `~~~` fence), `|` (a
 * table row) and `=` (a setext underline).
 */
function escapeText(text: string): string {
  return text
    .replace(/[\\`*_{}[\]()>#+\-.!]/g, '\\$&')
    .replace(/[<&~|=]/g, (char) => `&#${char.charCodeAt(0)};`);
}

function escapeInline(text: string): string {
  return escapeText(oneLine(text));
}

/** A definition's lines, unindented (an indent is a code block), each escaped. */
function escapeBlock(text: string): string[] {
  return textLines(text).map((line) => escapeText(line.trim()));
}

function categoryRank(category: string): number {
  const index = (CATEGORIES as readonly string[]).indexOf(category);
  return index === -1 ? CATEGORIES.length : index;
}

function glossaryPage(terms: readonly Term[]): string {
  const owners = idOwners(terms);
  const lines = ['# Glossary', ''];
  const categories = [...new Set(terms.map((term) => term.category))].sort(
    (a, b) => categoryRank(a) - categoryRank(b) || a.localeCompare(b),
  );
  for (const category of categories) {
    lines.push(`## ${escapeInline(category)}`, '');
    for (const term of terms.filter((each) => each.category === category).sort(byName)) {
      const anchor = owners.get(term.id) === term ? ` {#term-${term.id}}` : '';
      lines.push(`### ${escapeInline(term.term)}${anchor}`, '');
      lines.push(...escapeBlock(term.definition), '');
      if (term.aliases) lines.push(`Also: ${term.aliases.map(escapeInline).join(', ')}`, '');
      if (term.avoid) lines.push(`Avoid: ${term.avoid.map(escapeInline).join(', ')}`, '');
      if (term.see_also.length > 0) {
        const links = term.see_also.map((id) => {
          const related = owners.get(id);
          return related
            ? `[${escapeInline(related.term)}](#term-${id})`
            : `ID ${id} (not in this glossary)`;
        });
        lines.push(`See also: ${links.join(', ')}`, '');
      }
    }
  }
  if (terms.length === 0) lines.push('The glossary is empty.', '');
  return `${lines.join('\n').trimEnd()}\n`;
}

const MKDOCS_YML = `# Written by \`glossary export --format mkdocs\` (docs/docs-pipeline.md).
site_name: Glossary
docs_dir: docs
markdown_extensions:
  - abbr
  - attr_list
  - pymdownx.snippets:
      base_path: ["."]
      check_paths: true
      auto_append:
        - ${ABBREVIATIONS}
`;

export const mkdocsFormat: FolderFormat = {
  kind: 'folder',
  name: 'mkdocs',
  description:
    'An MkDocs folder: abbreviations for every alias (abbr + snippets auto_append), a glossary page with term-{id} anchors, mkdocs.yml.',
  folderName: 'glossary-mkdocs',
  async *render(source: TermSource): AsyncIterable<FolderFile> {
    const terms = await allTerms(source);
    yield { path: 'mkdocs.yml', content: MKDOCS_YML };
    const lines = abbreviations(terms);
    yield { path: ABBREVIATIONS, content: lines.length > 0 ? `${lines.join('\n')}\n` : '' };
    yield { path: 'docs/glossary.md', content: glossaryPage(terms) };
  },
};
