import { type NameKind, nameFold } from './other-names.ts';

/**
 * The rule within one term (terminology-and-docs.md, "Other names of a term"): no name of a
 * term twice, by `nameFold` (case- and accent-insensitive). Its names are taken in order (its
 * name, its aliases, its names to avoid), and a name that repeats an earlier one is the one
 * at fault: an alias equal to the term's name, an entry twice in one list, or an entry in both
 * lists.
 */

/** A name that repeats an earlier one of the same term: where it is, and what it repeats. */
export interface RepeatedName {
  kind: Exclude<NameKind, 'term'>;
  index: number;
  text: string;
  /** Which of the term's names it repeats: its name, an alias, or a name to avoid. */
  earlier: NameKind;
}

/**
 * The repeated names of a term as a client sent it, which may not be valid otherwise: only
 * string entries of arrays count, and a blank entry (already refused as blank) repeats nothing.
 */
export function repeatedNames(candidate: unknown): RepeatedName[] {
  if (typeof candidate !== 'object' || candidate === null) return [];
  const fields = candidate as Record<string, unknown>;
  const seen = new Map<string, NameKind>();
  if (typeof fields.term === 'string') {
    const fold = nameFold(fields.term);
    if (fold !== '') seen.set(fold, 'term');
  }
  const repeats: RepeatedName[] = [];
  for (const kind of ['aliases', 'avoid'] as const) {
    const list = fields[kind];
    if (!Array.isArray(list)) continue;
    list.forEach((text: unknown, index) => {
      if (typeof text !== 'string') return;
      const fold = nameFold(text);
      if (fold === '') return;
      const earlier = seen.get(fold);
      if (earlier === undefined) seen.set(fold, kind);
      else repeats.push({ kind, index, text, earlier });
    });
  }
  return repeats;
}

/**
 * "'K8s' is already an alias of this term": a fault's message, without a final stop, as the
 * other messages of the 422 vocabulary (a bulk item joins them with `; `).
 */
export function repeatedNameMessage(text: string, earlier: NameKind): string {
  const what =
    earlier === 'avoid'
      ? 'already a name to avoid for'
      : earlier === 'aliases'
        ? 'already an alias of'
        : 'the name of';
  return `'${text}' is ${what} this term`;
}
