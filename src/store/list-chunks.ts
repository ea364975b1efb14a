import type { Term } from '../glossary/term.ts';

/** Terms per chunk of a streamed list, and the most a list reads without a snapshot. */
export const LIST_CHUNK = 500;

/**
 * A list as both stores read it. One statement is one snapshot: the first chunk is asked for
 * with one row more than a chunk, on the store's own connection, and most lists (every page,
 * every selective search, most levels of a `q`) end there, with no transaction, cursor or
 * connection of their own. Only when that extra row exists is the list read again from its
 * start by `snapshot`, every chunk from one snapshot (other writers may have written since).
 */
export async function* firstChunkThenSnapshot<R>(
  limit: number | undefined,
  firstRows: (limit: number) => R[] | Promise<R[]>,
  toTerm: (row: R) => Term,
  snapshot: () => AsyncIterable<Term[]> | Iterable<Term[]>,
): AsyncGenerator<Term[]> {
  const rows = await firstRows(Math.min(limit ?? Number.POSITIVE_INFINITY, LIST_CHUNK + 1));
  if (rows.length <= LIST_CHUNK) {
    if (rows.length > 0) yield rows.map(toTerm);
    return;
  }
  yield* snapshot();
}
