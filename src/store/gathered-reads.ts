import DataLoader from 'dataloader';

/**
 * Reads asked in the same turn of the event loop, answered together at its end. Under load a
 * small read costs far more around it than in it: on PostgreSQL a pooled connection, a round
 * trip and a result to parse; on SQLite the read transaction a statement opens alone, with the
 * file's lock taken and dropped. So 32 clients asking at once share a few statements (one
 * transaction on SQLite) rather than 32. The read is made after every caller asked, so it never
 * misses a write acknowledged before it was asked.
 */

/** Ids per statement: a turn of the event loop rarely gathers more. */
const MOST_IDS = 128;

/**
 * Reads by id (or by any number that names one row, such as PostgreSQL's seq), gathered:
 * `readMany` answers what it found of `ids`, by id (an id it did not find has no entry).
 * DataLoader does the gathering, with its batch dispatched when the turn ends (setImmediate,
 * not its default of the current tick: requests parsed in separate socket callbacks of one
 * turn share it). Its cache stays off: an id asked after a read began waits for a later read,
 * so it never misses a write acknowledged before it was asked; an id asked twice in one turn
 * is read once all the same (the batch's ids are made unique first).
 */
export function gatherById<T>(
  readMany: (ids: number[]) => Promise<Map<number, T>>,
): (id: number) => Promise<T | undefined> {
  const loader = new DataLoader<number, T | undefined>(
    async (ids) => {
      const found = await readMany([...new Set(ids)]);
      return ids.map((id) => found.get(id));
    },
    {
      cache: false,
      maxBatchSize: MOST_IDS,
      batchScheduleFn: (dispatch) => setImmediate(dispatch),
    },
  );
  return (id) => loader.load(id);
}

/**
 * One read without arguments (the glossary's revision, whether any token exists), gathered:
 * callers share its answer.
 */
export function gatherOne<T>(read: () => Promise<T>): () => Promise<T> {
  let next: Promise<T> | undefined;
  return () => {
    next ??= new Promise<T>((resolve, reject) => {
      setImmediate(() => {
        next = undefined;
        read().then(resolve, reject);
      });
    });
    return next;
  };
}
