import type pg from 'pg';
import { anonymousChange, type Change } from '../../glossary/history.ts';
import type { Term } from '../../glossary/term.ts';
import { type Creation, createBatch, prepareBatch } from './create-batch.ts';
import { commitUnknown, write } from './transaction.ts';
import type { Vocabulary } from './vocabulary.ts';
import { createTerm } from './writes.ts';

/**
 * Group commit of `POST /terms` on PostgreSQL, as the SQLite store's (group-commit.ts): the
 * creates that arrive while a batch is being written wait, and then go together in one
 * transaction (create-batch.ts: a few round trips, one NOTIFY, one COMMIT, one WAL flush for
 * all). Each caller is answered only once that COMMIT returned: stored, or refused alone
 * (rule 8) with its own error. One batch at a time per store, at most MOST_A_BATCH creates.
 *
 * If the batch fails before its COMMIT was sent (a deadlock, a statement that failed), it
 * was rolled back, and each create is tried again alone, in order, so one item's failure is
 * never another's. If its COMMIT itself fails, whether it committed is not known: every caller
 * is answered with that failure, as a create alone would be, and none is tried again (a
 * create stores a term even when its id exists, so a retry could store one twice).
 */

/**
 * The most creates one transaction writes: a few dozen already share one flush, and the
 * change log lists the rows of a statement of at most 64 (change-log-trigger.ts), so the kept
 * counts follow a batch row by row rather than counting again.
 */
const MOST_A_BATCH = 64;

interface Waiting extends Creation {
  answer: (error?: unknown) => void;
}

export function batchedCreates(
  pool: pg.Pool,
  vocabulary: Vocabulary,
  remember: <T>(work: () => Promise<T>) => Promise<T>,
): (term: Term, change?: Change) => Promise<void> {
  let waiting: Waiting[] = [];
  let busy = false;

  const alone = (creation: Creation) =>
    remember(() =>
      write(pool, async (client) => {
        await createTerm(client, creation.term, creation.change, vocabulary);
        return { result: undefined, changed: true };
      }),
    );

  const writeBatch = async (batch: Waiting[]) => {
    let refusals: unknown[];
    try {
      const prepared = prepareBatch(batch);
      refusals = await remember(() =>
        write(
          pool,
          async (client, first) => {
            const result = await createBatch(client, prepared, first, vocabulary);
            return { result, changed: result.some((refusal) => refusal === undefined) };
          },
          prepared.first,
        ),
      );
    } catch (error) {
      if (batch.length === 1 || commitUnknown(error)) {
        for (const item of batch) item.answer(error);
        return;
      }
      for (const item of batch) {
        await alone(item).then(
          () => item.answer(),
          (failure: unknown) => item.answer(failure),
        );
      }
      return;
    }
    for (const [i, item] of batch.entries()) item.answer(refusals[i]);
  };

  const next = () => {
    if (busy || waiting.length === 0) return;
    busy = true;
    // The rest of this turn's creates join the batch.
    setImmediate(() => {
      const batch = waiting.slice(0, MOST_A_BATCH);
      waiting = waiting.slice(batch.length);
      writeBatch(batch).finally(() => {
        busy = false;
        next();
      });
    });
  };

  return (term, change = anonymousChange()) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({
        term,
        change,
        answer: (error) => (error === undefined ? resolve() : reject(error)),
      });
      next();
    });
}
