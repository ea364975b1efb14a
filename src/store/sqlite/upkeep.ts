import type Database from 'better-sqlite3';
import { QuietTime, type QuietTimers } from '../quiet-time.ts';
import { type BackgroundMerge, backgroundMerge } from './background-merge.ts';

/**
 * Upkeep of the two FTS5 indexes (`terms_fts`, `terms_words`). Each write transaction adds a
 * b-tree segment to each index, and FTS5 merges only some of them as it goes (automerge): a
 * glossary loaded by a hundred bulk imports keeps many segments, and every look-up of a word or
 * trigram reads each of them. Merged into one b-tree each, searches and look-ups of words read
 * one segment (docs/performance.md has the gain).
 *
 * Merging rewrites a whole index (seconds of work at a million terms), so it is done only once the
 * terms indexed since the last merge reach a tenth of the glossary (and at least `minTerms`),
 * which keeps its cost in proportion to what was written; and only when no write has come from
 * this process for `idleMs`. It runs in steps of `pages` pages, each a short transaction of its
 * own, on a thread and a connection of its own (background-merge.ts), so that requests never
 * wait behind a step on the event loop; a write pauses it until the store is quiet again. An
 * in-memory database, which no other connection can open, merges in steps on the store's
 * connection, with requests served between them. The count is the glossary's revision (which every term a write
 * indexes, re-indexes or removes moves on by one) less the revision the last merge saw, kept in
 * the file (`index_upkeep`, migration 7): it survives a restart, every process of one file
 * shares it, and writes pay nothing for it. Merging changes no answer: it only rewrites how the
 * indexes are stored.
 *
 * The same quiet moment, once nothing is left to merge, purges the vocabulary's old removals
 * (`tidy`, vocabulary.ts), a short transaction a step, then starts a checkpoint of the WAL, which
 * the store runs on a thread of its own (background-checkpoint.ts). Writes checkpoint only
 * every WAL_AUTOCHECKPOINT pages (store.ts); a WAL copied back in full lets every read
 * skip looking in it.
 */
export interface IndexUpkeepOptions {
  /** Quiet time before merging starts, and after a write interrupted it. */
  idleMs?: number;
  /** Terms indexed since the last merge below which no merge is considered. */
  minTerms?: number;
  /**
   * Pages each step of a merge writes, per index: 8 on a thread of its own (a write of the
   * store that meets a step waits for it on the event loop; smaller steps cost the merge no
   * more in all), 64 on the store's connection.
   */
  pages?: number;
  /** How long the vocabulary keeps a removal for other processes (vocabulary.ts). */
  keepRemovalsMs?: number;
  /** The timers that wait for quiet (quiet-time.ts): the process's, unless a test drives them. */
  timers?: QuietTimers;
}

export interface IndexUpkeep {
  /** After a write committed, and at open: (re)starts the wait for quiet. */
  schedule(): void;
  /** Stops waiting, and waits for a merge under way on its thread to end its step. */
  close(): Promise<void>;
}

const INDEXES = ['terms_fts', 'terms_words'] as const;

export function createIndexUpkeep(
  db: Database.Database,
  checkpoint: () => void,
  options: IndexUpkeepOptions = {},
  tidy: () => boolean = () => false,
): IndexUpkeep {
  const idleMs = options.idleMs ?? 1000;
  const minTerms = options.minTerms ?? 10_000;
  const pages = options.pages ?? (db.memory ? 64 : 8);

  const state = db.prepare<[], { revision: number; merged: number; total: number }>(
    `SELECT g.revision, u.merged_revision AS merged,
            (SELECT coalesce(max(seq), 0) FROM terms) AS total
     FROM glossary_state g, index_upkeep u`,
  );
  const done = db.prepare<[number]>(
    'UPDATE index_upkeep SET merged_revision = max(merged_revision, ?)',
  );
  const changes = db.prepare<[], number>('SELECT total_changes()').pluck();
  // A negative page count merges segments of every level, as 'optimize' does, a step at a time.
  const merges = INDEXES.map((index) =>
    db.prepare<[number]>(`INSERT INTO ${index} (${index}, rank) VALUES ('merge', ?)`),
  );

  /** Merges on a thread of their own, for a file. */
  const merger: BackgroundMerge | undefined = db.memory
    ? undefined
    : backgroundMerge(db.name, pages);
  /** Quiet came again while a stopped merge was ending its step: look again once it ends. */
  let again = false;
  let closed = false;
  /** The next step of a merge under way. */
  let next: NodeJS.Immediate | undefined;
  /** While a merge is under way: the revision it merges everything up to. */
  let merging: { revision: number } | undefined;

  /** One step of the merge under way; answers whether there is more to do. */
  const step = db.transaction((under: { revision: number }): boolean => {
    let worked = false;
    for (const merge of merges) {
      const before = changes.get() ?? 0;
      merge.run(-pages);
      // FTS5's own test: a merge that found nothing to do changed fewer than two rows.
      if ((changes.get() ?? 0) - before >= 2) worked = true;
    }
    if (!worked) done.run(under.revision);
    return worked;
  });

  /** Once nothing is left to merge: a step of tidying, or, when none is left, the checkpoint. */
  const lastly = () => {
    if (tidy()) next = setImmediate(run).unref();
    else checkpoint();
  };

  /** The revision a merge would merge up to, when one is due. */
  const due = (): number | undefined => {
    // Read outside a transaction: most quiet moments merge nothing, and take no lock.
    const { revision, merged, total } = state.get() ?? { revision: 0, merged: 0, total: 0 };
    return revision - merged < Math.max(minTerms, total / 10) ? undefined : revision;
  };

  const inBackground = (merger: BackgroundMerge) => {
    if (merger.running) {
      again = true;
      return;
    }
    const revision = due();
    if (revision === undefined) {
      lastly();
      return;
    }
    merger.start(revision, (merged) => {
      if (closed) return;
      if (again) {
        again = false;
        run();
      } else if (merged) lastly();
    });
  };

  const run = () => {
    next = undefined;
    try {
      if (merger) {
        inBackground(merger);
        return;
      }
      if (!merging) {
        const revision = due();
        if (revision === undefined) {
          lastly();
          return;
        }
        merging = { revision };
      }
      if (step.immediate(merging)) next = setImmediate(run).unref();
      else {
        merging = undefined;
        lastly();
      }
    } catch {
      // Storage trouble (disk full, the file locked by another process for too long): the
      // next write starts the wait again, and the merge resumes where it stopped.
      merging = undefined;
    }
  };

  const quiet = new QuietTime(idleMs, run, options.timers);
  const stop = () => {
    quiet.stop();
    clearImmediate(next);
    next = undefined;
    again = false;
    merger?.stop();
  };

  return {
    schedule() {
      stop();
      if (db.open) quiet.restart();
    },
    async close() {
      closed = true;
      stop();
      await merger?.close();
    },
  };
}
