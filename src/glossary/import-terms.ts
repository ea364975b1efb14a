import type { Change } from './history.ts';
import type { NameConflictError } from './other-names.ts';
import type { Term } from './term.ts';
import type { ImportOutcome, TermStore } from './term-store.ts';

/** A bulk item after validation: a term to import, or why it cannot be one. */
export type CheckedItem = { ok: true; term: Term } | { ok: false; detail: string };

/** What became of one bulk item (the wire's bulk item result). */
export type ImportResult =
  | { index: number; status: 'created'; id: number }
  | { index: number; status: 'error'; detail: string };

/** An item refused by the rule across the glossary, in the caller's words. */
export type DescribeConflict = (conflict: NameConflictError) => string;

/**
 * POST /terms/bulk: each item is judged on its own, in this order: validation (done by the
 * caller, in its own vocabulary), then "already stored", then "already created earlier in this
 * batch". The first valid occurrence of an id is the one created; an invalid item does not
 * reserve its id. The store checks "already stored" and inserts in one transaction, so
 * concurrent imports never create an id twice. An item whose names break the rule across the
 * glossary (term-store.ts, rule 8) is refused with `describe`'s words for the conflict.
 */
export function importTerms(
  store: TermStore,
  items: readonly CheckedItem[],
  change?: Change,
  describe: DescribeConflict = (conflict) => conflict.message,
): Promise<ImportResult[]> {
  return judge(items, (terms) => store.importMany(terms, change), describe);
}

/**
 * `dry_run`: the results the import would give now, without storing anything. (Another
 * writer may of course change the answer before a real import runs.)
 */
export function previewImport(
  store: TermStore,
  items: readonly CheckedItem[],
  describe: DescribeConflict = (conflict) => conflict.message,
): Promise<ImportResult[]> {
  return judge(items, (terms) => store.previewImport(terms), describe);
}

async function judge(
  items: readonly CheckedItem[],
  store: (terms: readonly Term[]) => Promise<ImportOutcome[]>,
  describe: DescribeConflict,
): Promise<ImportResult[]> {
  const results: ImportResult[] = [];
  const candidates: { index: number; term: Term }[] = [];
  const duplicates: { index: number; id: number }[] = [];
  const firstOccurrence = new Set<number>();

  items.forEach((item, index) => {
    if (!item.ok) {
      results[index] = { index, status: 'error', detail: item.detail };
    } else if (firstOccurrence.has(item.term.id)) {
      duplicates.push({ index, id: item.term.id });
    } else {
      firstOccurrence.add(item.term.id);
      candidates.push({ index, term: item.term });
    }
  });

  const outcomes = candidates.length > 0 ? await store(candidates.map((c) => c.term)) : [];
  const alreadyStored = new Set<number>();
  candidates.forEach(({ index, term }, i) => {
    const outcome = outcomes[i];
    if (outcome === 'created') {
      results[index] = { index, status: 'created', id: term.id };
    } else if (outcome !== undefined && outcome !== 'exists') {
      results[index] = { index, status: 'error', detail: describe(outcome) };
    } else {
      alreadyStored.add(term.id);
      results[index] = { index, status: 'error', detail: alreadyExists(term.id) };
    }
  });
  for (const { index, id } of duplicates) {
    const detail = alreadyStored.has(id) ? alreadyExists(id) : `Duplicate ID ${id} in batch.`;
    results[index] = { index, status: 'error', detail };
  }
  return results;
}

function alreadyExists(id: number): string {
  return `Term with ID ${id} already exists.`;
}
