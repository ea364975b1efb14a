import {
  NameConflictError,
  type NameKind,
  type NameOfTerm,
  namesOf,
} from '../glossary/other-names.ts';
import type { Term } from '../glossary/term.ts';
import type { ImportOutcome } from '../glossary/term-store.ts';
import { nameKey, wordsOf } from '../glossary/words.ts';

/**
 * What both stores keep of a term's names (rule 8 of TermStore, other-names.ts): the rows of
 * `term_names`, one per name, alias and name to avoid of every live term, and the check of the
 * rule against the rows of the live terms that share a fold with the term written.
 */

/** A row of `term_names`, without its term's `seq`. */
export interface NameRow {
  kind: NameKind;
  /** `nameFold` of the text: what the rule compares. */
  fold: string;
  /** `nameKey` of the text (its words joined by single spaces): what `q` compares. */
  key: string;
}

/** The term's rows of `term_names`: its name, then each alias, then each name to avoid. */
export function nameRows(term: Pick<Term, 'term' | 'aliases' | 'avoid'>): NameRow[] {
  return namesOf(term).map((name) => ({
    kind: name.kind,
    fold: name.fold,
    key: nameKey(name.text),
  }));
}

/** The distinct folds of the term's names: what a write looks up, and locks on PostgreSQL. */
export function foldsOf(term: Pick<Term, 'term' | 'aliases' | 'avoid'>): string[] {
  return [...new Set(namesOf(term).map((name) => name.fold))];
}

/** A name of a live term, as the check reads it from `term_names` (joined to `terms`). */
export interface LiveName {
  fold: string;
  kind: NameKind;
  id: number;
  seq: number;
}

const KIND_ORDER: Record<NameKind, number> = { term: 0, aliases: 1, avoid: 2 };

/**
 * The names of live terms a write is checked against, by fold: those `term_names` holds for
 * the folds of the terms written, and those of the terms the write stores as it goes (an
 * import's earlier items).
 */
export class LiveNames {
  private readonly byFold = new Map<string, LiveName[]>();

  constructor(names: Iterable<LiveName> = []) {
    for (const name of names) this.add(name);
  }

  add(name: LiveName): void {
    const list = this.byFold.get(name.fold);
    if (list) list.push(name);
    else this.byFold.set(name.fold, [name]);
  }

  /** The names of a term just stored at `seq`. */
  addTerm(term: Pick<Term, 'id' | 'term' | 'aliases' | 'avoid'>, seq: number): void {
    for (const row of nameRows(term))
      this.add({ fold: row.fold, kind: row.kind, id: term.id, seq });
  }

  /**
   * The first of the term's names (in `namesOf` order) that breaks the rule, as the error to
   * refuse the write with, or undefined. A name to avoid conflicts with another term's name or
   * alias; a name or alias with another term's name to avoid. `self`, the seq of the term
   * being replaced, never conflicts. `names`: the term's `namesOf`, when the caller has them. Of several terms the earliest (by seq) is named, and of
   * its names, its name before its aliases.
   */
  conflict(
    term: Pick<Term, 'term' | 'aliases' | 'avoid'>,
    self?: number,
    names: readonly NameOfTerm[] = namesOf(term),
  ): NameConflictError | undefined {
    for (const name of names) {
      const avoid = name.kind === 'avoid';
      let other: LiveName | undefined;
      for (const candidate of this.byFold.get(name.fold) ?? []) {
        if (candidate.seq === self || (candidate.kind === 'avoid') === avoid) continue;
        if (
          !other ||
          candidate.seq < other.seq ||
          (candidate.seq === other.seq && KIND_ORDER[candidate.kind] < KIND_ORDER[other.kind])
        ) {
          other = candidate;
        }
      }
      if (other) {
        return new NameConflictError(name.kind, name.index, name.text, other.id, other.kind);
      }
    }
    return undefined;
  }
}

/**
 * What an import of `terms` (distinct ids) answers for each, in order: `exists` for an id in
 * `existing`, the conflict under rule 8 with the live names or an earlier item stored by the
 * same import, else `created` (and its names join `live`, after every term stored before).
 */
export function importOutcomes(
  terms: readonly Term[],
  existing: ReadonlySet<number>,
  live: LiveNames,
): ImportOutcome[] {
  let seq = Number.MAX_SAFE_INTEGER - terms.length;
  return terms.map((term) => {
    if (existing.has(term.id)) return 'exists';
    const conflict = live.conflict(term);
    if (conflict) return conflict;
    seq += 1;
    live.addTerm(term, seq);
    return 'created';
  });
}

/** The term with its fields in the Term order, `aliases` and `avoid` only when non-empty. */
export function storedTerm(term: Term): Term {
  const stored: Term = {
    id: term.id,
    term: term.term,
    definition: term.definition,
    category: term.category,
    see_also: term.see_also,
  };
  if (term.aliases && term.aliases.length > 0) stored.aliases = term.aliases;
  if (term.avoid && term.avoid.length > 0) stored.avoid = term.avoid;
  return stored;
}

/** Sets the other names read from storage on `term` (in Term order: call last), when any. */
export function withOtherNames(
  term: Term,
  aliases: readonly string[] | null | undefined,
  avoid: readonly string[] | null | undefined,
): Term {
  if (aliases && aliases.length > 0) term.aliases = [...aliases];
  if (avoid && avoid.length > 0) term.avoid = [...avoid];
  return term;
}

/** The words (words.ts) of the aliases, and of the names to avoid, as `q` indexes them. */
export function otherWords(term: Pick<Term, 'aliases' | 'avoid'>): {
  aliases: string[];
  avoid: string[];
} {
  return {
    aliases: (term.aliases ?? []).flatMap(wordsOf),
    avoid: (term.avoid ?? []).flatMap(wordsOf),
  };
}
