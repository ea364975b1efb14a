import type { Term } from '../term.ts';
import type { FileFormat, TermSource } from './format.ts';
import { allTerms, byName, idOwners, oneLine, textLines } from './names.ts';

/**
 * A reStructuredText page for Sphinx: a title and one `.. glossary::` whose entries carry the
 * name and the aliases as term lines (each one a `:term:` target), the definition indented
 * below, and the see-also terms as `:term:` references. Entries are sorted by name.
 *
 * Sphinx takes a glossary term as a target once (a second one is a warning, an error under
 * `-W`, and a different case only replaces the first): a name or alias is claimed by the
 * earliest term that has it (creation order, case aside). A later alias already claimed is left
 * out; a later name becomes "Name (term 42)", so every entry keeps a line to point at.
 */

/** Every ASCII punctuation character, and the Unicode bullets reStructuredText lists start with. */
const RST_MARKUP = /[!-/:-@[-`{-~\u2022\u2023\u2043]/g;

/**
 * Text that reStructuredText reads back as exactly itself: a backslash before every punctuation
 * character, so no inline markup (`*`, backquotes, `|`, `_`, `[`), no role, no classifier
 * (` : `), no comment or directive (`..`), no list, table, section underline or literal block
 * (`::`) can start. Inside `:term:` the escaped `<` cannot start an explicit target.
 */
export function rstEscape(text: string): string {
  return text.replace(RST_MARKUP, '\\$&');
}

/** The term lines of each term (its first line is the one to point at), claimed in creation order. */
function termLines(terms: readonly Term[]): Map<Term, string[]> {
  const claimed = new Set<string>();
  const claim = (text: string): boolean => {
    const key = text.toLowerCase();
    if (claimed.has(key)) return false;
    claimed.add(key);
    return true;
  };
  const lines = new Map<Term, string[]>();
  for (const term of terms) {
    const name = oneLine(term.term);
    let first = name;
    for (let n = 1; !claim(first); n++) {
      first = n === 1 ? `${name} (term ${term.id})` : `${name} (term ${term.id}, ${n})`;
    }
    const own = [first];
    for (const alias of term.aliases ?? []) {
      const text = oneLine(alias);
      if (text !== '' && claim(text)) own.push(text);
    }
    lines.set(term, own);
  }
  return lines;
}

/** Definition lines, escaped and unindented (an indent would start a block quote). */
function definitionLines(definition: string): string[] {
  const lines = textLines(definition).map((line) => rstEscape(line.trim()));
  // Runs of blank lines are one paragraph break; none at the ends.
  return lines
    .filter((line, index) => line !== '' || (index > 0 && lines[index - 1] !== ''))
    .join('\n')
    .trim()
    .split('\n');
}

const INDENT = '   ';

function entry(term: Term, lines: Map<Term, string[]>, owners: Map<number, Term>): string[] {
  const out = (lines.get(term) ?? []).map((line) => `${INDENT}${rstEscape(line)}`);
  const body = definitionLines(term.definition);
  if (term.see_also.length > 0) {
    const refs = term.see_also.map((id) => {
      const related = owners.get(id);
      const target = related && lines.get(related)?.[0];
      return target ? `:term:\`${rstEscape(target)}\`` : `ID ${id} (not in this glossary)`;
    });
    body.push('', `See also: ${refs.join(', ')}`);
  }
  out.push('', ...body.map((line) => (line === '' ? '' : `${INDENT}${INDENT}${line}`)), '');
  return out;
}

export const sphinxFormat: FileFormat = {
  kind: 'file',
  name: 'sphinx',
  description:
    'A reStructuredText page for Sphinx: a .. glossary:: with aliases as extra names and :term: see-also links.',
  mediaType: 'text/x-rst; charset=utf-8',
  fileName: 'glossary.rst',
  async *render(source: TermSource): AsyncIterable<string> {
    const terms = await allTerms(source);
    const lines = termLines(terms);
    const owners = idOwners(terms);
    const out = [
      '.. Written by `glossary export --format sphinx`; edit the glossary, not this file.',
      '',
      'Glossary',
      '========',
      '',
    ];
    if (terms.length === 0) {
      out.push('The glossary is empty.', '');
    } else {
      out.push('.. glossary::', '');
      for (const term of [...terms].sort(byName)) out.push(...entry(term, lines, owners));
    }
    yield `${out.join('\n').trimEnd()}\n`;
  },
};
