/**
 * Group commit, the write side of per-turn batching (gathered-reads.ts is the read side).
 * Writes that arrive together (in the same turn of the event loop, typically while the
 * previous commit waited for its fsync) share one transaction and one fsync; each caller is
 * answered only after that commit, so nothing is acknowledged before it is on disk. They are
 * stored in the order they were asked for. If the shared commit fails, each is tried on its
 * own, so one caller's failure is never another's.
 */
export function groupCommit<T>(commitMany: (items: T[]) => void): (item: T) => Promise<void> {
  let items: T[] = [];
  let answers: ((error?: unknown) => void)[] = [];
  const commitWaiting = () => {
    const batch = items;
    const done = answers;
    items = [];
    answers = [];
    try {
      commitMany(batch);
    } catch (error) {
      if (batch.length === 1) {
        done[0]?.(error);
        return;
      }
      batch.forEach((item, at) => {
        try {
          commitMany([item]);
          done[at]?.();
        } catch (alone) {
          done[at]?.(alone);
        }
      });
      return;
    }
    for (const answer of done) answer();
  };
  return (item) =>
    new Promise<void>((resolve, reject) => {
      items.push(item);
      answers.push((error) => (error === undefined ? resolve() : reject(error)));
      if (items.length === 1) setImmediate(commitWaiting);
    });
}
