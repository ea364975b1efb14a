import type pg from 'pg';
import { typoCandidate, WordIndex } from '../../glossary/words.ts';
import { PURGE_STEP } from '../vocabulary-removals.ts';

/** Transaction advisory lock held while numbering vocabulary rows ("GLOSVOCA"). */
const NUMBERING_LOCK = 0x474c4f53564f4341n;
/**
 * Transaction advisory lock on the vocabulary's content ("GLOSVOCW"): shared by a write that
 * adds words, exclusive for one that takes words away.
 */
const CONTENT_LOCK = 0x474c4f53564f4357n;

/**
 * The words a typo may find, following the glossary's content (migration 7), on disk and in
 * this process's memory (a `WordIndex`), as in the SQLite store (see its vocabulary.ts):
 * `vocabulary` holds each word with the number (`rev`) of the write that last added or
 * removed it; a removal stays (`removed_at` set) until it is old enough to purge, so that
 * every process learns of it; `vocabulary_state.purged` is the highest number purged, and a
 * process that has seen less reads the vocabulary afresh. Before each look-up the store reads
 * the newest number (with the glossary's revision, one statement a turn for all who asked);
 * only when it is past what this process has seen does the memory take what came since (one
 * indexed read). Memory after a start holds only the live words.
 *
 * Numbers: a transaction that writes vocabulary rows numbers them past the highest number
 * (of a row, or purged), holding a lock until it commits, so the numbers are committed in the
 * order they grow and a process that has seen number N has seen every row numbered below.
 *
 * Concurrency. Words are taken away by the write that takes them from a term (an update, a
 * removal, a restore over a live term: it looks, for each word the term no longer has, whether
 * another live term has it; see TAKE_AND_ADD), while other transactions may be adding terms
 * with the same words. A write that adds a term with word w skips storing w when
 * its memory says w is there already; if a concurrent write removed w's last other use and
 * decided w was dead before the first committed, w would be missing while a live term has it.
 * So the vocabulary's content has a lock (CONTENT_LOCK): a write that only adds takes it
 * shared (adders never wait for each other), a write that takes words away exclusive. Either
 * takes it once it holds every lock its term statements need (after them; a restore, before
 * them but after locking its id, all they wait for), and only then reads what changed in the vocabulary
 * and what the terms hold, in statements of their own (READ COMMITTED: a fresh snapshot each):
 * the remover sees every adder that committed before it, and an adder that waited sees the
 * removal and stores w again. Adders that store new words also take NUMBERING_LOCK; a remover
 * holds the content exclusively, which numbers alone. Locks are always taken in this order,
 * after every lock on a term id and before the revision counters (transaction.ts), so no
 * wait can close a cycle.
 *
 * Cost: creates and bulk imports take the shared lock and read what is new in the same round
 * trip they always spent on it; only writes that take words away wait for the writes in flight
 * to commit, and make others wait for theirs. Memory changes only by what committed (a write's
 * own words come back through the next read): a rolled-back write's words used to stay in
 * memory, and later writes of them skipped storing them for good.
 */
export interface Vocabulary {
  /** Whether a row numbered `latest` is one this process has not taken yet. */
  behind(latest: number): boolean;
  /** Takes what other processes stored since this one last looked. */
  sync(client: pg.ClientBase): Promise<void>;
  /** The words at most `max` edits from `word`, as of the last `sync`. */
  similar(word: string, max: number): string[];
  /**
   * Inside a write transaction, after its term statements: stores the words of the terms
   * written (`now`), and takes out those of the term replaced or removed (`before`) that no
   * live term has any more, not counting the row `seq` (the term replaced, when the write has
   * not changed it yet).
   */
  record(
    client: pg.ClientBase,
    now: Iterable<string>,
    before?: { words: Iterable<string>; seq: number },
  ): Promise<void>;
  /** Purges the removals older than `keepMs`, in steps of their own; answers how many. */
  purge(client: pg.ClientBase, keepMs: number): Promise<number>;
}

interface Change {
  word: string | null;
  rev: number;
  removed: boolean;
}

/**
 * What changed since `seen`, or with `seen` < 0 every live word; in one statement (one
 * snapshot), with `purged` as the first row (its word null). Numbers only: no parameter, so it
 * can follow a lock in one round trip.
 */
function changesSince(seen: number): string {
  const head = `SELECT NULL::text AS word, purged AS rev, false AS removed FROM vocabulary_state`;
  return seen < 0
    ? `${head} UNION ALL SELECT NULL, coalesce(max(rev), -1), false FROM vocabulary
       UNION ALL SELECT word, rev, false FROM vocabulary WHERE removed_at IS NULL`
    : `${head} UNION ALL SELECT word, rev, removed_at IS NOT NULL FROM vocabulary
       WHERE rev > ${Math.trunc(seen)}`;
}

/** The number after every number given: of a row, or of one purged. */
const NEXT = `(SELECT greatest(coalesce(max(rev), 0), (SELECT purged FROM vocabulary_state)) + 1
               FROM vocabulary)`;

/**
 * Takes out the words of `$1` that no live term other than row `$3` has, and stores those of
 * `$2` (reviving a removal), numbered alike. Whether a word is still used is looked up in the
 * GIN index of `all_vec`, which cannot stop at the first term it finds: it gathers all of a
 * word's terms first, which grows with the glossary for a common word, and the words a term
 * loses are often such words ("the", "of"). So the
 * words of the newest 64 terms are read first (by `seq`, through its index): a word they hold
 * is used, and only the others, mostly rare, are looked up in the index. Written so that no
 * plan can scan `terms` whole: given each word as a value of its own, the planner, lacking
 * statistics (a table just loaded), looked for a dead word in every row.
 */
const TAKE_AND_ADD = `
  WITH next AS (SELECT ${NEXT} AS rev),
  recent AS MATERIALIZED (
    SELECT unnest(tsvector_to_array(all_vec)) AS word
    FROM (SELECT all_vec FROM terms WHERE seq <> $3 ORDER BY seq DESC LIMIT 64) t
  ),
  dead AS MATERIALIZED (
    SELECT w FROM unnest($1::text[]) w
    WHERE w NOT IN (SELECT word FROM recent)
      AND NOT EXISTS (
        SELECT 1 FROM terms WHERE all_vec @@ quote_literal(w)::tsquery AND seq <> $3
      )
  ),
  removed AS (
    UPDATE vocabulary v SET rev = next.rev, removed_at = now()
    FROM next, dead WHERE v.word = dead.w AND v.removed_at IS NULL
  )
  INSERT INTO vocabulary (word, rev) SELECT w, next.rev FROM unnest($2::text[]) w, next
  ON CONFLICT (word) DO UPDATE SET rev = EXCLUDED.rev, removed_at = NULL
  WHERE vocabulary.removed_at IS NOT NULL`;

const ADD = `
  INSERT INTO vocabulary (word, rev)
  SELECT w, ${NEXT} FROM unnest($1::text[]) w
  ON CONFLICT (word) DO UPDATE SET rev = EXCLUDED.rev, removed_at = NULL
  WHERE vocabulary.removed_at IS NOT NULL`;

/** One step of the purge, and `purged` moved in the same statement. */
const PURGE = `
  WITH old AS (
    SELECT word FROM vocabulary
    WHERE removed_at <= now() - $1 * interval '1 millisecond'
    LIMIT ${PURGE_STEP}
  ), gone AS (
    DELETE FROM vocabulary v USING old WHERE v.word = old.word AND v.removed_at IS NOT NULL
    RETURNING v.rev
  )
  UPDATE vocabulary_state SET purged = greatest(purged, (SELECT max(rev) FROM gone))
  WHERE EXISTS (SELECT 1 FROM gone)
  RETURNING (SELECT count(*) FROM gone) AS count`;

export function createVocabulary(): Vocabulary {
  let index = new WordIndex();
  let seen = -1;

  /**
   * Applies what `changesSince` answered; false when rows it needs were purged and the
   * vocabulary must be read afresh. Reads may overlap (look-ups and writes of this process
   * sync on connections of their own) and answer out of order, so an answer older than what
   * memory holds changes nothing: numbers are committed in the order they grow, so a row
   * numbered at most `seen` is one memory has already taken, in that state or a newer one.
   */
  const apply = (rows: Change[], afresh: boolean): boolean => {
    const purged = rows[0]?.rev ?? -1;
    if (!afresh && purged > seen) return false;
    let top = purged;
    for (const row of rows) if (row.rev > top) top = row.rev;
    if (top <= seen) return true;
    if (afresh) {
      const fresh = new WordIndex();
      for (const { word } of rows) if (word !== null) fresh.add(word);
      index = fresh;
    } else {
      for (const { word, rev, removed } of rows) {
        if (word === null || rev <= seen) continue;
        if (removed) index.remove(word);
        else index.add(word);
      }
    }
    seen = top;
    return true;
  };
  /** Takes what is new, after the statements `before` (a lock) in the same round trip. */
  const read = async (client: pg.ClientBase, before = '') => {
    const afresh = seen < 0;
    const results: unknown = await client.query<Change>(`${before}${changesSince(seen)}`);
    // Several statements in one round trip answer one result each.
    const last = (Array.isArray(results) ? results.at(-1) : results) as pg.QueryResult<Change>;
    if (apply(last.rows, afresh)) return;
    apply((await client.query<Change>(changesSince(-1))).rows, true);
  };
  const lock = (key: bigint, shared: boolean) =>
    `SELECT pg_advisory_xact_lock${shared ? '_shared' : ''}(${key});`;

  return {
    behind: (latest) => latest > seen,
    sync: (client) => read(client),
    similar: (word, max) => index.similar(word, max),
    async record(client, now, before) {
      const words = new Set([...now].filter(typoCandidate));
      const left = [...new Set(before?.words ?? [])].filter(
        (word) => !words.has(word) && typoCandidate(word),
      );
      if (words.size === 0 && left.length === 0) return;
      await read(client, lock(CONTENT_LOCK, left.length === 0));
      const fresh = [...words].filter((word) => !index.has(word));
      if (left.length > 0) {
        await client.query(TAKE_AND_ADD, [left, fresh, before?.seq ?? 0]);
      } else if (fresh.length > 0) {
        await client.query(`${lock(NUMBERING_LOCK, false)}`);
        await client.query(ADD, [fresh]);
      }
      // Memory follows at the next look-up, from what committed: a write rolled back leaves
      // it as it was.
    },
    async purge(client, keepMs) {
      let purged = 0;
      for (;;) {
        const { rows } = await client.query<{ count: number }>(PURGE, [keepMs]);
        const count = Number(rows[0]?.count ?? 0);
        purged += count;
        if (count < PURGE_STEP) return purged;
      }
    },
  };
}
