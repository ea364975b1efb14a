import type { Change, HistoryPage, HistorySlice } from './history.ts';
import { mergePatch } from './merge-patch.ts';
import type { Term } from './term.ts';
import type { TermStore } from './term-store.ts';

/**
 * Correcting the glossary: replace, patch, delete, restore, and the history they leave. Each
 * acts on the term `GET /terms/{id}` shows (the earliest live one with that id). A precondition
 * (the HTTP layer's If-Match) is checked inside the store's write transaction, against the
 * state the change would overwrite, so no other writer can slip in between.
 */

export class TermNotFound extends Error {
  constructor(readonly id: number) {
    super(`no term has the id ${id}`);
    this.name = 'TermNotFound';
  }
}

/** The term is not in the state the client read (If-Match). */
export class PreconditionFailed extends Error {
  constructor() {
    super('the term has changed since it was read');
    this.name = 'PreconditionFailed';
  }
}

export class NoSuchRevision extends Error {
  constructor(
    readonly id: number,
    readonly revision: number,
  ) {
    super(`no revision ${revision} in the history of term ${id}`);
    this.name = 'NoSuchRevision';
  }
}

export interface EditOptions {
  change: Change;
  /** Whether the current state may be changed; absent means any state may. */
  precondition?: ((current: Term | undefined) => boolean) | undefined;
}

function check(options: EditOptions, current: Term | undefined): void {
  if (options.precondition && !options.precondition(current)) throw new PreconditionFailed();
}

/** PUT: the term becomes `next` (whose id is the path's, checked by the caller). */
export async function replaceTerm(
  store: TermStore,
  next: Term,
  options: EditOptions,
): Promise<Term> {
  const updated = await store.update(
    next.id,
    (current) => {
      check(options, current);
      return next;
    },
    options.change,
  );
  if (!updated) throw new TermNotFound(next.id);
  return updated;
}

/**
 * PATCH: an RFC 7396 merge patch of the current state, validated as a whole by `validate`
 * (which throws the caller's validation error). Merged inside the transaction, so a
 * concurrent change of another field is never lost.
 */
export async function patchTerm(
  store: TermStore,
  id: number,
  patch: Record<string, unknown>,
  options: EditOptions & { validate: (candidate: unknown) => Term },
): Promise<Term> {
  const updated = await store.update(
    id,
    (current) => {
      check(options, current);
      return options.validate(mergePatch(current, patch));
    },
    options.change,
  );
  if (!updated) throw new TermNotFound(id);
  return updated;
}

export async function deleteTerm(
  store: TermStore,
  id: number,
  options: EditOptions,
): Promise<void> {
  const removed = await store.remove(id, (current) => check(options, current), options.change);
  if (!removed) throw new TermNotFound(id);
}

/** Brings back the state of one entry of the id's history (re-creating a deleted term). */
export async function restoreRevision(
  store: TermStore,
  id: number,
  revision: number,
  options: EditOptions,
): Promise<Term> {
  const restored = await store.restore(
    id,
    revision,
    (current) => check(options, current),
    options.change,
  );
  if (restored === undefined) throw new TermNotFound(id);
  if (restored === 'no-such-revision') throw new NoSuchRevision(id, revision);
  return restored;
}

/** A page of the id's history, newest first; only an id that never existed has none. */
export async function termHistory(
  store: TermStore,
  id: number,
  page: HistoryPage,
): Promise<HistorySlice> {
  const slice = await store.history(id, page);
  if (!slice) throw new TermNotFound(id);
  return slice;
}
