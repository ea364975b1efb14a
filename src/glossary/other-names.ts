import { foldCase, isAscii } from './fold-case.ts';
import type { Term } from './term.ts';

/**
 * A term's other names (terminology-and-docs.md, "Other names of a term"): `aliases` are other
 * accepted names, `avoid` names a writer should not use. Two names are the same when their
 * `nameFold`s are equal: case- and accent-insensitive, whitespace runs counted as one space.
 */

/** Which of a term's names: its name (`term`), an alias, or a name to avoid. */
export type NameKind = 'term' | 'aliases' | 'avoid';

/** Case-folded, accents (combining marks after compatibility decomposition) dropped, spaces single. */
export function nameFold(text: string): string {
  if (isAscii(text)) return text.toLowerCase().trim().replace(/\s+/g, ' ');
  return foldCase(text.normalize('NFKD').replace(/\p{M}/gu, ''))
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .trim()
    .replace(/\s+/gu, ' ');
}

/** One of a term's names: which list (`index` in it; 0 for the name) and its fold. */
export interface NameOfTerm {
  kind: NameKind;
  index: number;
  text: string;
  fold: string;
}

/** Every name of the term: its name, its aliases, its names to avoid, in that order. */
export function namesOf(term: Pick<Term, 'term' | 'aliases' | 'avoid'>): NameOfTerm[] {
  const names: NameOfTerm[] = [
    { kind: 'term', index: 0, text: term.term, fold: nameFold(term.term) },
  ];
  for (const kind of ['aliases', 'avoid'] as const) {
    (term[kind] ?? []).forEach((text, index) => {
      names.push({ kind, index, text, fold: nameFold(text) });
    });
  }
  return names;
}

/**
 * A write refused by the rule across the glossary: the name `text` (at `kind`/`index` of the
 * term written) is, folded, a name to avoid of live term `otherId` (when the written name is
 * its name or an alias), or that term's name or one of its aliases (`otherKind`, when the
 * written name is one to avoid). A store throws it from inside the write's own transaction, so
 * two concurrent writes cannot both get in; the write is rolled back.
 */
export class NameConflictError extends Error {
  constructor(
    readonly kind: NameKind,
    readonly index: number,
    readonly text: string,
    readonly otherId: number,
    readonly otherKind: NameKind,
  ) {
    super(nameConflictMessage(text, otherId, otherKind));
    this.name = 'NameConflictError';
  }
}

/** The contract's message: "'web hook' is a name to avoid for term 42." */
export function nameConflictMessage(name: string, otherId: number, otherKind: NameKind): string {
  const what =
    otherKind === 'avoid'
      ? 'a name to avoid for'
      : otherKind === 'aliases'
        ? 'an alias of'
        : 'the name of';
  return `'${name}' is ${what} term ${otherId}.`;
}
