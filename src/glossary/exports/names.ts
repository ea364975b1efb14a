import { nameFold } from '../other-names.ts';
import type { Term } from '../term.ts';
import type { TermSource } from './format.ts';

/**
 * What the docs-tool renderers (vale, textlint, mkdocs, sphinx, hugo) share: reading every term,
 * deciding which term owns an id or a name, and the text escapes more than one of them needs.
 * Dependency-free: the page may bundle the renderers.
 */

/** Every term of the source, in creation order: these formats sort or cross-check the whole. */
export async function allTerms(source: TermSource): Promise<Term[]> {
  const terms: Term[] = [];
  for await (const chunk of source()) terms.push(...chunk);
  return terms;
}

/** A duplicated id (possible through POST /terms) belongs to its earliest term, as on GET. */
export function idOwners(terms: readonly Term[]): Map<number, Term> {
  const owners = new Map<number, Term>();
  for (const term of terms) if (!owners.has(term.id)) owners.set(term.id, term);
  return owners;
}

/**
 * Characters a line-based file cannot hold inside a line: C0 and C1 controls (tab and line feed
 * included), DEL, and the separators some readers break lines at (U+2028, U+2029; Python's
 * `splitlines` also breaks at VT, FF, FS, GS, RS and NEL, all controls).
 */
const LINE_BREAKERS = /[\p{Cc}\u2028\u2029]/gu;

/** Those of them that end a line for some reader (the rest are controls to drop). */
const ENDS_A_LINE = '\n\u000b\u000c\u001c\u001d\u001e\u0085\u2028\u2029';

/** A name on one line: every control or line separator a space, whitespace runs one space. */
export function oneLine(text: string): string {
  return text.replace(LINE_BREAKERS, ' ').replace(/\s+/gu, ' ').trim();
}

/** A definition's lines: each line end any reader sees (CR, LF, CRLF, VT, FF, FS, GS, RS, NEL, U+2028, U+2029) ends one; other controls become spaces. */
export function textLines(text: string): string[] {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(LINE_BREAKERS, (char) => (ENDS_A_LINE.includes(char) ? '\n' : ' '))
    .split('\n')
    .map((line) => line.trimEnd());
}

/** The definition's first sentence (up to the first `.`, `!` or `?` before a space), one line. */
export function firstSentence(definition: string): string {
  const text = oneLine(definition);
  const end = /[.!?](?=\s|$)/u.exec(text);
  return end ? text.slice(0, end.index + 1) : text;
}

/**
 * A YAML double-quoted scalar that any YAML 1.1 or 1.2 reader (go-yaml in Vale and Hugo, PyYAML
 * in MkDocs) reads back as exactly `text`: JSON's escapes (a YAML 1.2 subset), plus `\u` escapes
 * for what YAML does not allow raw (DEL, C1 controls, U+FEFF, U+FFFE/U+FFFF) or reads as a line
 * break (NEL, U+2028, U+2029). A quoted scalar is never `yes`, `null`, `~` or a number.
 */
export function yamlString(text: string): string {
  return JSON.stringify(text).replace(
    /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A YAML flow sequence of double-quoted scalars. */
export function yamlList(items: readonly string[]): string {
  return `[${items.map(yamlString).join(', ')}]`;
}

/** One avoid entry and the name a writer should use instead. */
export interface Substitution {
  avoid: string;
  use: string;
  term: number;
}

/**
 * The names to avoid, decided once for the linters (vale, textlint). Every avoid entry has its
 * term's name as the better name, so it becomes a substitution. Two cases have no single better
 * name, and go to `noBetterName` instead (Vale's `reject.txt`, which only says "avoid"):
 * an entry (folded: case, accents and spacing aside) that terms with different names list, or
 * an entry that is also some term's name or alias (the store refuses that; an older glossary or
 * a hand-made file may still hold it), which is then neither accepted nor replaced. Entries are
 * unique by fold, in creation order of their first term, the earliest spelling kept.
 */
export function avoidEntries(terms: readonly Term[]): {
  substitutions: Substitution[];
  noBetterName: string[];
} {
  const accepted = new Set<string>();
  for (const term of terms) {
    accepted.add(nameFold(term.term));
    for (const alias of term.aliases ?? []) accepted.add(nameFold(alias));
  }
  const byFold = new Map<string, { avoid: string; names: Map<string, Term> }>();
  for (const term of terms) {
    for (const entry of term.avoid ?? []) {
      const avoid = oneLine(entry);
      if (avoid === '') continue;
      const fold = nameFold(avoid);
      let seen = byFold.get(fold);
      if (!seen) {
        seen = { avoid, names: new Map() };
        byFold.set(fold, seen);
      }
      const nameKey = nameFold(term.term);
      if (!seen.names.has(nameKey)) seen.names.set(nameKey, term);
    }
  }
  const substitutions: Substitution[] = [];
  const noBetterName: string[] = [];
  for (const [fold, { avoid, names }] of byFold) {
    const [only, ...others] = [...names.values()];
    if (only && others.length === 0 && !accepted.has(fold)) {
      substitutions.push({ avoid, use: oneLine(only.term), term: only.id });
    } else {
      noBetterName.push(avoid);
    }
  }
  return { substitutions, noBetterName };
}

/** Longest first, so a longer entry wins over one it contains ("web hooks" over "web hook"). */
export function longestFirst<T>(items: readonly T[], text: (item: T) => string): T[] {
  return [...items].sort((a, b) => text(b).length - text(a).length);
}

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

/** Terms by name (accent- and case-insensitive, numbers as numbers), ties by id. */
export function byName(a: Term, b: Term): number {
  return collator.compare(a.term, b.term) || a.id - b.id;
}
