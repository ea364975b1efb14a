/**
 * Reads asked in the same turn of the event loop, answered together at its end. Under load a
 * small read costs far more around it than in it: on PostgreSQL a pooled connection, a round
 * trip and a result to parse; on SQLite the read transaction a statement opens alone, with the
 * file's lock taken and dropped. So 32 clients asking at once share a few statements (one
 * transaction on SQLite) rather than 32. The read is made after every caller asked, so it never
 * misses a write acknowledged before it was asked.
 */

interface Waiter<T> {
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

/** Ids per statement: a turn of the event loop rarely gathers more. */
const MOST_IDS = 128;

/**
 * Reads by id (or by any number that names one row, such as PostgreSQL's seq), gathered:
 * `readMany` answers what it found of `ids`, by id (an id it did not find has no entry).
 */
export function gatherById<T>(
  readMany: (ids: number[]) => Promise<Map<number, T>>,
): (id: number) => Promise<T | undefined> {
  let waiting = new Map<number, Waiter<T | undefined>[]>();
  const flush = () => {
    const asked = waiting;
    waiting = new Map();
    const ids = [...asked.keys()];
    for (let at = 0; at < ids.length; at += MOST_IDS) {
      const part = ids.slice(at, at + MOST_IDS);
      const answer = (each: (waiter: Waiter<T | undefined>, id: number) => void) => {
        for (const id of part) for (const waiter of asked.get(id) ?? []) each(waiter, id);
      };
      readMany(part).then(
        (found) => answer((waiter, id) => waiter.resolve(found.get(id))),
        (error: unknown) => answer((waiter) => waiter.reject(error)),
      );
    }
  };
  return (id) =>
    new Promise((resolve, reject) => {
      if (waiting.size === 0) setImmediate(flush);
      const waiters = waiting.get(id);
      if (waiters) waiters.push({ resolve, reject });
      else waiting.set(id, [{ resolve, reject }]);
    });
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
