import type { Term } from '../term.ts';
import type { FolderFile, FolderFormat, TermSource } from './format.ts';
import { allTerms, avoidEntries, longestFirst, oneLine, yamlString } from './names.ts';

/**
 * A folder for Vale 3 (terminology-and-docs.md, "Exports"; docs/docs-pipeline.md says what each
 * file does). Vale reads every entry and swap key as a regular expression (Go's RE2 syntax), so
 * each name is quoted: RE2's metacharacters get a backslash, as Go's `regexp.QuoteMeta` does.
 */

const VOCAB = 'styles/config/vocabularies/Glossary';

/** RE2's metacharacters (those `regexp.QuoteMeta` escapes) and `#` (a comment at line start). */
const RE2_META = /[\\.+*?()|[\]{}^$#]/g;

/** A name as an RE2 pattern matching exactly it (Vale trims each vocabulary line). */
export function re2Literal(text: string): string {
  return oneLine(text).replace(RE2_META, '\\$&');
}

const ASCII_WORD = /[0-9A-Za-z_]/;

/**
 * A swap key for a name to avoid: the name quoted, any run of spaces `\s+` (so "web hook" is
 * found across a line break too), and a word boundary `\b` at each end that is an ASCII letter,
 * digit or underscore. RE2's `\b` knows ASCII word characters only: "C++" or "<blink>" could
 * never sit between two `\b`s, which is why the rule says `nonword: true` and puts the
 * boundaries in each pattern. No lookaround, no backreference.
 */
export function avoidPattern(text: string): string {
  const name = oneLine(text);
  const body = name
    .split(' ')
    .map((word) => word.replace(RE2_META, '\\$&'))
    .join('\\s+');
  const start = ASCII_WORD.test(name.charAt(0)) ? '\\b' : '';
  const end = ASCII_WORD.test(name.charAt(name.length - 1)) ? '\\b' : '';
  return `${start}${body}${end}`;
}

/** A reject.txt entry: the quoted name, case-insensitive in a scoped group (no flag leaks). */
function rejectEntry(text: string): string {
  return `(?i:${re2Literal(text)})`;
}

function acceptList(terms: readonly Term[]): string[] {
  const entries = new Set<string>();
  for (const term of terms) {
    for (const name of [term.term, ...(term.aliases ?? [])]) {
      const entry = re2Literal(name);
      if (entry !== '') entries.add(entry);
    }
  }
  return [...entries];
}

const HEADER = '# Written by `glossary export --format vale`; edit the glossary, not this file.';

const VALE_INI = `# Vale 3 with the glossary's names (docs/docs-pipeline.md): the vocabulary Glossary
# (accept.txt, reject.txt) and the style Glossary (Terms.yml) under StylesPath.
StylesPath = styles
MinAlertLevel = suggestion
Vocab = Glossary

# Markdown and text; Vale reads .rst through docutils' rst2html and .adoc through asciidoctor,
# so add those here where they are installed.
[*.{md,txt}]
# Vale: Vale.Terms (the case of accepted one-word names) and Vale.Avoid (reject.txt).
BasedOnStyles = Vale, Glossary
# Vale's own spelling check flags every word its dictionary lacks; turn it on if you want it.
Vale.Spelling = NO
`;

export const valeFormat: FolderFormat = {
  kind: 'folder',
  name: 'vale',
  description:
    'A Vale 3 folder: vocabulary Glossary (names and aliases accepted), style Glossary.Terms (names to avoid → name), .vale.ini.',
  folderName: 'glossary-vale',
  async *render(source: TermSource): AsyncIterable<FolderFile> {
    const terms = await allTerms(source);
    const { substitutions, noBetterName } = avoidEntries(terms);
    yield { path: '.vale.ini', content: VALE_INI };
    yield {
      path: `${VOCAB}/accept.txt`,
      content: `${[HEADER, ...acceptList(terms)].join('\n')}\n`,
    };
    yield {
      path: `${VOCAB}/reject.txt`,
      content: `${[HEADER, ...noBetterName.map(rejectEntry)].join('\n')}\n`,
    };
    const swaps = longestFirst(substitutions, (swap) => swap.avoid).map(
      (swap) => `  ${yamlString(avoidPattern(swap.avoid))}: ${yamlString(swap.use)}`,
    );
    yield {
      path: 'styles/Glossary/Terms.yml',
      content: [
        HEADER,
        'extends: substitution',
        `message: "Use '%s' instead of '%s' (glossary)."`,
        'level: error',
        'ignorecase: true',
        'nonword: true',
        swaps.length > 0 ? 'swap:' : 'swap: {}',
        ...swaps,
        '',
      ].join('\n'),
    };
  },
};
