import type { Term } from './term.ts';
import type { SomeTerms, TermStore } from './term-store.ts';

/**
 * The warnings of a write (issue 32): what the glossary accepts but a writer should hear of,
 * said beside the answer, never refusing it (the contract accepts links to any id and
 * repeated names). Read after the write has committed, through the store's indexes: a write
 * made meanwhile (the missing term created a moment later) can make a warning stale, which
 * is harmless, since it refuses nothing and the next answer says it afresh.
 */

/** How many terms a warning names; the rest are counted (`and 3 more`). */
export const NAMED_TERMS = 10;

/**
 * After a create, a replace, a patch or a restore of `term`: each `see_also` id no live term
 * has, then the other terms whose name or alias is its name.
 */
export async function writeWarnings(store: TermStore, term: Term): Promise<string[]> {
  const { missing, sameName } = await store.writeNotes(term, NAMED_TERMS);
  const warnings = missing.map((id) => `see_also: no term has id ${id}.`);
  if (sameName.total > 0) {
    warnings.push(`term: ${termsOf(sameName)} ${verb(sameName, 'has', 'have')} the same name.`);
  }
  return warnings;
}

/** After a delete of `id`: the terms whose links to it now lead nowhere. */
export async function deleteWarnings(store: TermStore, id: number): Promise<string[]> {
  const linking = await store.danglingLinks(id, NAMED_TERMS);
  if (linking.total === 0) return [];
  return [`${termsOf(linking)} ${verb(linking, 'links', 'link')} to this term.`];
}

/** "term 3", "terms 3, 7", "terms 1, 2, ..., 10 and 5 more". */
function termsOf({ ids, total }: SomeTerms): string {
  const more = total > ids.length ? ` and ${total - ids.length} more` : '';
  return `${total === 1 ? 'term' : 'terms'} ${ids.join(', ')}${more}`;
}

function verb({ total }: SomeTerms, one: string, many: string): string {
  return total === 1 ? one : many;
}
