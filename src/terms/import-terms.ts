import type { BulkItemResult, Term } from '../schemas/term.ts';
import type { TermStore } from '../store/term-store.ts';
import { checkTerm, describeFaults } from './term-input.ts';

/**
 * POST /terms/bulk: each item is judged on its own, in this order: validation, then "already
 * stored", then "already created earlier in this batch". The first valid occurrence of an id is
 * the one created; an invalid item does not reserve its id. The store checks "already stored"
 * and inserts in one transaction, so concurrent imports never create an id twice.
 */
export async function importTerms(
  store: TermStore,
  items: readonly unknown[],
): Promise<BulkItemResult[]> {
  const results: BulkItemResult[] = [];
  const candidates: { index: number; term: Term }[] = [];
  const duplicates: { index: number; id: number }[] = [];
  const firstOccurrence = new Set<number>();

  items.forEach((item, index) => {
    const checked = checkTerm(item);
    if (!checked.ok) {
      results[index] = { index, status: 'error', detail: describeFaults(checked.faults) };
    } else if (firstOccurrence.has(checked.term.id)) {
      duplicates.push({ index, id: checked.term.id });
    } else {
      firstOccurrence.add(checked.term.id);
      candidates.push({ index, term: checked.term });
    }
  });

  const outcomes =
    candidates.length > 0 ? await store.importMany(candidates.map((c) => c.term)) : [];
  const alreadyStored = new Set<number>();
  candidates.forEach(({ index, term }, i) => {
    if (outcomes[i] === 'created') {
      results[index] = { index, status: 'created', id: term.id };
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
