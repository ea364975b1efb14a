import type pg from 'pg';
import type { ListOptions, TermFilter } from '../../glossary/filters.ts';
import { anonymousChange } from '../../glossary/history.ts';
import type { Term } from '../../glossary/term.ts';
import type { ImportOutcome, TermStore, Warn } from '../../glossary/term-store.ts';
import type { FoundToken, StoredToken } from '../../glossary/tokens.ts';
import { SchemaError, StoreUnavailableError } from '../errors.ts';
import { gatherById, gatherOne } from '../gathered-reads.ts';
import { RevisionCache } from '../revision-cache.ts';
import { describeError, isUnavailable, redactUrl, rethrow } from './errors.ts';
import { historyPage } from './history.ts';
import { keptCounts } from './kept-counts.ts';
import { ListSlots, listSlotsFor } from './list-slots.ts';
import { migrate, REVISION_SLOTS } from './migrations.ts';
import { connect, createPool, ignoreErrors, type PoolOptions } from './pool.ts';
import { StatementNames } from './statement-names.ts';
import { LIST_CHUNK, streamRows } from './stream-rows.ts';
import {
  ALL_VECTOR,
  COLUMNS,
  levelsQuery,
  listQuery,
  type ReadPlan,
  type Row,
  rankedQuery,
  termValues,
  toTerm,
  wordsOfValues,
} from './term-rows.ts';
import { type PendingLists, type PendingListsOptions, pendingListUpkeep } from './upkeep.ts';
import { createVocabulary, KEEP_REMOVALS_MS, type Vocabulary } from './vocabulary.ts';
import { removeTerm, restoreTerm, updateTerm } from './writes.ts';

/**
 * The shared store: one PostgreSQL database behind any number of stateless instances. Every
 * write is one short transaction (one statement for the terms, one for the revision, COMMIT),
 * so a 201/207 is sent only after COMMIT has returned, which with the default
 * `synchronous_commit = on` means the WAL is flushed.
 */

export interface PostgresStoreOptions extends PoolOptions {
  /**
   * Told of a failure the store works around (the change log not pruned, the search indexes'
   * pending lists not merged); the caller logs it.
   */
  warn?: Warn;
  /** When the search indexes' pending lists are merged (pending-lists.ts); the default suits. */
  indexUpkeep?: PendingListsOptions;
}

/**
 * Bulk import in one statement, not a round trip per item. `term_ids` holds every id ever
 * stored under a primary key, with the number of its live terms: the bulk path claims its ids
 * there (a new id, or one whose terms were all removed) and creates only the terms whose id it
 * claimed. When two requests (through any instances) claim the same id at once, the primary key
 * or the row lock makes the second wait for the first to commit and then see the claim taken,
 * so the id is created exactly once and the other request answers "already exists". Ids are
 * claimed in ascending order, so two batches overlapping in several ids always wait in the same
 * order and cannot deadlock. Every other write of an id (POST /terms, edits) takes the same row
 * lock, so the bulk path also sees ids created or removed by them.
 */
const IMPORT = `
  WITH input AS (
    SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                         $7::text[], $8::text[])
      WITH ORDINALITY AS t (id, term, term_folded, definition, category, see_also, name_words,
                            definition_words, ord)
  ), claimed AS (
    INSERT INTO term_ids (id, live) SELECT id, 1 FROM input ORDER BY id
    ON CONFLICT (id) DO UPDATE SET live = 1 WHERE term_ids.live = 0
    RETURNING id
  )
  INSERT INTO terms (id, term, term_folded, definition, category, see_also, name_words,
                     all_vec, created_at, created_by)
  SELECT id, term, term_folded, definition, category, see_also::jsonb, name_words,
         ${ALL_VECTOR('name_words', 'definition_words')}, $9, $10
  FROM input JOIN claimed USING (id)
  ORDER BY ord
  RETURNING id`;

/** POST /terms: counts one more live term for the id (locking its row first), then stores it. */
const CREATE = `
  WITH claimed AS (
    INSERT INTO term_ids (id, live) VALUES ($1, 1)
    ON CONFLICT (id) DO UPDATE SET live = term_ids.live + 1
    RETURNING id
  )
  INSERT INTO terms (id, term, term_folded, definition, category, see_also, name_words,
                     all_vec, created_at, created_by)
  SELECT $1, $2, $3, $4, $5, $6::jsonb, $7, ${ALL_VECTOR('$7', '$8')}, $9, $10 FROM claimed`;

/**
 * Ends a write transaction that changed the glossary. The revision counter is bumped by a
 * statement of its own, after every statement that may wait for another transaction (on an id
 * in `term_ids`): a transaction holding a counter row therefore waits for nothing but other
 * counter rows, each held by a transaction as far along, so the two kinds of wait cannot form
 * a cycle (a deadlock).
 */
const bumpAndCommit = (slot: number) =>
  `UPDATE glossary_revision SET value = value + 1 WHERE slot = ${slot}; COMMIT`;

export async function openPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<TermStore> {
  const pool = createPool(url, options);
  const where = redactUrl(url);
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    await pool.end();
    throw new Error(`cannot connect to PostgreSQL at ${where}: ${describeError(error)}`, {
      cause: error,
    });
  }
  try {
    await migrate(client, where);
    client.release();
  } catch (error) {
    client.release(true);
    await pool.end();
    if (error instanceof SchemaError) throw error;
    throw new Error(`cannot prepare the schema in ${where}: ${describeError(error)}`, {
      cause: error,
    });
  }
  const poolSize = options.poolSize ?? 10;
  const warn = options.warn ?? (() => undefined);
  const vocabulary = createVocabulary();
  const onClient = async (work: (client: pg.PoolClient) => Promise<unknown>) => {
    const client = await connect(pool);
    try {
      await work(client);
      client.release();
    } catch (error) {
      // Not back to the pool inside a transaction the failure left open.
      client.release(true);
      throw error;
    }
  };
  const keepRemovalsMs = options.indexUpkeep?.keepRemovalsMs ?? KEEP_REMOVALS_MS;
  return postgresStore(
    pool,
    new ListSlots(listSlotsFor(poolSize), options.connectionTimeoutMs ?? 5000),
    warn,
    pendingListUpkeep(
      (sql) => onClient((client) => client.query(sql)),
      warn,
      options.indexUpkeep,
      () => onClient((client) => vocabulary.purge(client, keepRemovalsMs)),
    ),
    vocabulary,
  );
}

function postgresStore(
  pool: pg.Pool,
  slots: ListSlots,
  warn: Warn,
  pendingLists: PendingLists,
  vocabulary: Vocabulary,
): TermStore {
  let closed = false;

  /**
   * One statement on a pooled connection. `name` makes it a prepared statement on each
   * connection (parsed once, its plan kept): for the few fixed, hot statements whose plan does
   * not depend on their values (a read by id, the revision), not for searches.
   */
  async function query<R extends pg.QueryResultRow>(
    text: string,
    values: unknown[] = [],
    name?: string,
  ): Promise<R[]> {
    const client = await connect(pool);
    try {
      const { rows } = await client.query<R>(name ? { name, text, values } : { text, values });
      client.release();
      return rows;
    } catch (error) {
      client.release(isUnavailable(error));
      rethrow(error, 'query failed');
    }
  }

  // As in the SQLite store: a write that failed for lack of storage (read-only server after a
  // failover, disk full, lost connection) is remembered until a write succeeds, and while it
  // is, readiness probes with a real write instead of a read that may still work.
  let writeFailure: StoreUnavailableError | null = null;
  async function remember<T>(work: () => Promise<T>): Promise<T> {
    try {
      const result = await work();
      writeFailure = null;
      pruneNow();
      pendingLists.wrote();
      return result;
    } catch (error) {
      if (error instanceof StoreUnavailableError) writeFailure = error;
      throw error;
    }
  }

  // The change log is pruned by instances that write, at most once every PRUNE_EVERY_MS each,
  // beside the write that found it due. A failure leaves the log longer (counts stay exact, and
  // slower to carry on as it grows) and is told, at most once a prune, until a prune succeeds.
  let pruning: Promise<void> | undefined;
  let prunedAt = Number.NEGATIVE_INFINITY;
  function pruneNow() {
    if (pruning || closed || performance.now() - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = performance.now();
    pruning = kept
      .prune()
      .catch((error: unknown) => {
        if (!closed)
          warn('could not prune the change log of counts (term_changes); will retry', error);
      })
      .finally(() => {
        pruning = undefined;
      });
  }

  // The words of a `q` are looked up together: one look at what is new serves them all.
  const syncVocabulary = gatherOne(async () => {
    const client = await connect(pool);
    try {
      await vocabulary.sync(client);
      client.release();
    } catch (error) {
      client.release(isUnavailable(error));
      rethrow(error, 'vocabulary failed');
    }
  });

  // The glossary's revision, and with it the vocabulary's newest number (of a word added or
  // removed, or purged): a `q` reads both, and one statement a turn serves every reader of
  // either.
  const glossaryState = gatherOne(async () => {
    const rows = await query<{ revision: string; words: string | null }>(
      `SELECT (SELECT identity FROM glossary_identity) || '.' || coalesce(sum(value), 0) AS revision,
              greatest((SELECT max(rev) FROM vocabulary),
                       (SELECT purged FROM vocabulary_state)) AS words
       FROM glossary_revision`,
      [],
      'glossary-state',
    );
    return { revision: rows[0]?.revision ?? '', words: Number(rows[0]?.words ?? -1) };
  });
  const revisionOf = async () => (await glossaryState()).revision;

  // Counts, kept for as long as the glossary stays at the revision they were taken at (rule
  // 3): `X-Total-Count` and the choice below read them again and again. After a write, the
  // change log brings a count up to date without counting again (kept-counts.ts).
  const kept = keptCounts(query);
  const counts = new RevisionCache<number>();
  const countOf = (revision: string, filter: TermFilter) =>
    counts.get(revision, filter, () => kept.count(filter));

  /**
   * How a page of a filtered list is read (see `ReadPlan`). PostgreSQL's own estimate of a
   * word's or substring's frequency is too rough to choose well (a broad word took 4 s a page,
   * a word no term has 1 s), so the choice is made from the filter's count: walk when the page
   * should be full after at most WALK_ROWS terms, else read the matches through their index.
   * The choice needs no exact count: one taken in the last ESTIMATE_MS at an earlier revision
   * serves (writes seldom move a filter across the line, and then only make a page slower), so
   * a write does not make the next page of every broad search pay for counting its matches
   * again (about 0.5 s for a common word at 1M terms).
   */
  async function readPlan(filter: TermFilter, options: ListOptions): Promise<ReadPlan> {
    if (options.limit === undefined || !(filter.search || filter.text?.words)) return 'planner';
    if (!WALKABLE.has(options.sort ?? 'created')) return 'planner';
    const revision = await revisionOf();
    const estimate = (of: TermFilter) => counts.recent(of, ESTIMATE_MS) ?? countOf(revision, of);
    const [matches, total] = await Promise.all([estimate(filter), estimate({})]);
    const needed = (options.offset ?? 0) + options.limit;
    return matches > 0 && (needed * total) / matches <= WALK_ROWS ? 'walk' : 'index';
  }

  // An id registered more than once answers its earliest term (DISTINCT ON keeps the first
  // row of each id in ORDER BY order).
  const getById = gatherById<Row>(async (ids) => {
    const rows = await query<Row>(
      `SELECT DISTINCT ON (id) ${COLUMNS} FROM terms WHERE id = ANY($1::bigint[]) ORDER BY id, seq`,
      [ids],
      'terms-by-ids',
    );
    return new Map(rows.map((row) => [row.id, row]));
  });

  // Rows by seq, gathered like reads by id: the pages of rankings kept by seq (below), asked
  // by many requests in one turn, are read by one statement rather than one each.
  const getBySeq = gatherById<Row & { seq: number }>(async (seqs) => {
    const rows = await query<Row & { seq: number }>(
      `SELECT seq, ${COLUMNS} FROM terms WHERE seq = ANY($1::bigint[])`,
      [seqs],
      'terms-by-seqs',
    );
    return new Map(rows.map((row) => [row.seq, row]));
  });

  /** Rows by seq, in the order given, a chunk at a time. */
  async function* rowsOf(seqs: readonly number[]): AsyncGenerator<Term[]> {
    for (let at = 0; at < seqs.length; at += LIST_CHUNK) {
      const rows = await Promise.all(seqs.slice(at, at + LIST_CHUNK).map(getBySeq));
      const terms = rows.flatMap((row) => (row ? [toTerm(row)] : []));
      if (terms.length > 0) yield terms;
    }
  }

  // The ranked order of a query with few matches: one statement reads the word indexes once
  // and tells each match's level (the call that ranks gets the rows with it; a later page of
  // the same query reads its rows by seq). A query with more than SMALL_RANKING matches is
  // read level by level instead (each a list that may walk), remembered as such (null).
  const rankingNames = new StatementNames('ranking', RANKING_SHAPES);
  const rankings = new RevisionCache<number[] | null>(
    (seqs) => 1 + (seqs?.length ?? 0),
    RANKING_CACHE_WEIGHT,
  );

  /**
   * A ranking too large to rank at once is read level by level (glossary/ranking.ts), except
   * that a first page reads its first two levels in one statement (`firstOfLevels`): the first
   * is the exact name, whose index finds its few terms at once, and the second usually fills
   * the page (a name that starts with the query's words), so a broad query's page took two
   * round trips where one does. The second level's terms are read even when the first fills
   * the page: at most a page. What the two levels gave is kept by seq until the glossary's
   * revision moves: a broad word asked again (people look up "cache" more than once) reads its
   * page's rows by seq, a read gathered with every other request's of the same turn, rather
   * than running its levels again.
   */
  const firstPages = new RevisionCache<number[]>((seqs) => 1 + seqs.length, FIRST_PAGES_WEIGHT);

  return {
    backend: 'postgres',
    async rankAtOnce(filter, levels, page) {
      const revision = await revisionOf();
      // The matched rows in ranked order, when this call is the one that ranks.
      let matched: Row[] | undefined;
      const ranked = await rankings.get(revision, [filter, levels], async () => {
        const { text, values } = rankedQuery(filter, levels, SMALL_RANKING + 1);
        const rows = await query<{ seq: number; level: number } & Row>(
          text,
          values,
          rankingNames.nameOf(text),
        );
        if (rows.length > SMALL_RANKING) return null;
        rows.sort((a, b) => a.level - b.level || a.seq - b.seq);
        matched = rows;
        return rows.map((row) => row.seq);
      });
      if (!ranked) return undefined;
      const start = page.offset ?? 0;
      const end = page.limit === undefined ? ranked.length : start + page.limit;
      return matched ? termsOf(matched.slice(start, end)) : rowsOf(ranked.slice(start, end));
    },
    async firstOfLevels(filter, [first, second], limit) {
      const revision = await revisionOf();
      // The rows, when this call is the one that reads the levels.
      let read: Row[] | undefined;
      const seqs = await firstPages.get(revision, [filter, [first, second], limit], async () => {
        const plans = await Promise.all(
          [first, second].map(async (level) => ({
            level,
            plan: await readPlan({ ...filter, text: level }, { limit }),
          })),
        );
        const { text, values } = levelsQuery(filter, plans, limit);
        const rows = await query<Row & { seq: number; level: number }>(text, values);
        // Each level's terms come in creation order; the levels in theirs (a stable sort).
        const page = rows.sort((a, b) => a.level - b.level).slice(0, limit);
        read = page;
        return page.map((row) => row.seq);
      });
      if (read) return read.map(toTerm);
      const terms: Term[] = [];
      for await (const chunk of rowsOf(seqs)) terms.push(...chunk);
      return terms;
    },
    async get(id) {
      const row = await getById(id);
      return row && toTerm(row);
    },
    async *list(filter, options: ListOptions = {}) {
      const plan = await readPlan(filter, options);
      // One statement is one snapshot: a list that fits one chunk needs no cursor, no
      // transaction and no list slot. A list that may be longer is first asked for one row
      // more than a chunk; only when that row exists is it read again through a cursor.
      const first = listQuery(
        filter,
        { ...options, limit: Math.min(options.limit ?? Number.POSITIVE_INFINITY, LIST_CHUNK + 1) },
        plan,
      );
      const rows = await query<Row>(first.text, first.values);
      if (rows.length <= LIST_CHUNK) {
        if (rows.length > 0) yield rows.map(toTerm);
        return;
      }
      const { text, values } = listQuery(filter, options, plan);
      const release = await slots.take();
      try {
        yield* streamRows(pool, text, values);
      } finally {
        release();
      }
    },
    async count(filter, atMost) {
      const revision = await revisionOf();
      if (atMost === undefined) return countOf(revision, filter);
      const known = counts.current(revision, filter);
      if (known !== undefined) return Math.min(known, atMost);
      // The first `atMost` matches in the list's order, read as a page of that size would be.
      const plan = await readPlan(filter, { limit: atMost });
      const page = listQuery(filter, { limit: atMost }, plan, '1');
      const rows = await query<{ count: number }>(
        `SELECT count(*) AS count FROM (${page.text}) page`,
        page.values,
      );
      return rows[0]?.count ?? 0;
    },
    async similarWords(word, max) {
      const { words } = await glossaryState();
      if (vocabulary.behind(words)) await syncVocabulary();
      return vocabulary.similar(word, max);
    },
    async existingIds(ids) {
      const rows = await query<{ id: number }>(
        'SELECT DISTINCT id FROM terms WHERE id = ANY($1::bigint[])',
        [ids],
      );
      return new Set(rows.map((row) => row.id));
    },
    // Not max(seq): sequence values are drawn before commit, so a write holding a lower seq can
    // commit after a higher one was read, and max(seq) would not change. Instead each write
    // transaction that changes the glossary adds 1 to one of REVISION_SLOTS counter rows before
    // it commits (see `bumpAndCommit`): the sum grows with every commit and is read in one
    // snapshot. Spreading the increments over several rows keeps concurrent writers from
    // queueing on one row lock.
    revision: revisionOf,
    async create(term, change = anonymousChange()) {
      await remember(() =>
        write(pool, async (client) => {
          const values = termValues(term);
          await client.query(CREATE, [...values, change.at ?? Date.now(), change.by]);
          await vocabulary.record(client, wordsOfValues([values]));
          return { result: undefined, changed: true };
        }),
      );
    },
    async importMany(terms, change = anonymousChange()) {
      if (terms.length === 0) return [];
      const values = terms.map(termValues);
      const columns = Array.from({ length: 8 }, (_, i) => values.map((row) => row[i]));
      const created = await remember(() =>
        write(pool, async (client) => {
          const { rows } = await client.query<{ id: number }>(IMPORT, [
            ...columns,
            change.at ?? Date.now(),
            change.by,
          ]);
          const created = new Set(rows.map((row) => row.id));
          await vocabulary.record(
            client,
            wordsOfValues(values.filter((row) => created.has(row[0]))),
          );
          return { result: new Set(rows.map((row) => row.id)), changed: rows.length > 0 };
        }),
      );
      return terms.map((term): ImportOutcome => (created.has(term.id) ? 'created' : 'exists'));
    },
    async update(id, edit, change) {
      return remember(() =>
        write(pool, async (client) => {
          const result = await updateTerm(client, id, edit, change, vocabulary);
          return { result, changed: result !== undefined };
        }),
      );
    },
    async remove(id, confirm, change) {
      return remember(() =>
        write(pool, async (client) => {
          const result = await removeTerm(client, id, confirm, change, vocabulary);
          return { result, changed: result !== undefined };
        }),
      );
    },
    async restore(id, revision, confirm, change) {
      return remember(() =>
        write(pool, async (client) => {
          const result = await restoreTerm(client, id, revision, confirm, change, vocabulary);
          return { result, changed: typeof result === 'object' };
        }),
      );
    },
    async history(id, page) {
      const client = await connect(pool);
      try {
        const slice = await historyPage(client, id, page);
        client.release();
        return slice;
      } catch (error) {
        client.release(isUnavailable(error));
        rethrow(error, 'history failed');
      }
    },
    async addToken(token) {
      return remember(() =>
        write(pool, async (client) => {
          const { rowCount } = await client.query(
            `INSERT INTO tokens (name, lookup, hash, kind, created_at) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (name) DO NOTHING`,
            [token.name, token.lookup, token.hash, token.kind, token.createdAt],
          );
          return {
            result: rowCount ? ('added' as const) : ('name-taken' as const),
            changed: false,
          };
        }),
      );
    },
    async listTokens() {
      const rows = await query<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM tokens ORDER BY name`);
      return rows.map(({ name, kind, createdAt }) => ({ name, kind, createdAt }));
    },
    async revokeToken(name) {
      return remember(() =>
        write(pool, async (client) => {
          const { rowCount } = await client.query('DELETE FROM tokens WHERE name = $1', [name]);
          return { result: (rowCount ?? 0) > 0, changed: false };
        }),
      );
    },
    async findToken(lookup) {
      // One row whether or not a token has the key: the token's, or a decoy of the same shape.
      const rows = await query<FoundToken>(
        `SELECT coalesce(t.name, '') AS name, k.lookup,
                coalesce(t.hash, '\\x${'00'.repeat(32)}'::bytea) AS hash,
                coalesce(t.kind, 'read-only') AS kind, coalesce(t.created_at, 0) AS "createdAt",
                t.name IS NOT NULL AS found
         FROM (SELECT $1::text AS lookup) AS k LEFT JOIN tokens AS t ON t.lookup = k.lookup`,
        [lookup],
        'find-token',
      );
      return rows[0] as FoundToken;
    },
    // Asked by every request that needs access: once a turn for all who asked (gathered-reads).
    hasTokens: gatherOne(async () => (await query('SELECT 1 FROM tokens LIMIT 1')).length > 0),
    async check() {
      await query('SELECT 1 FROM terms LIMIT 1');
      if (writeFailure) {
        await remember(() =>
          write(pool, async (client) => {
            await client.query('UPDATE glossary_revision SET value = value WHERE slot = $1', [
              revisionSlot(),
            ]);
            return { result: undefined, changed: false };
          }),
        );
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([pruning, pendingLists.close()]);
      await pool.end();
    },
  };
}

/**
 * One write transaction, committed before it resolves. READ COMMITTED whatever the server's
 * default: after waiting for another transaction's id in `term_ids`, the insert must see that
 * transaction's commit (and report a conflict), not fail as a serialization error.
 */
async function write<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<{ result: T; changed: boolean }>,
): Promise<T> {
  const client = await connect(pool);
  client.on('error', ignoreErrors);
  let broken = false;
  try {
    await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
    const { result, changed } = await work(client);
    await client.query(changed ? bumpAndCommit(revisionSlot()) : 'COMMIT');
    return result;
  } catch (error) {
    broken = isUnavailable(error);
    if (!broken) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
    }
    rethrow(error, 'write failed');
  } finally {
    client.off('error', ignoreErrors);
    client.release(broken);
  }
}

/** Rows already read, as terms, a list chunk at a time. */
async function* termsOf(rows: readonly Row[]): AsyncGenerator<Term[]> {
  for (let at = 0; at < rows.length; at += LIST_CHUNK) {
    yield rows.slice(at, at + LIST_CHUNK).map(toTerm);
  }
}

/** How many shapes of a ranking's statement are prepared (see `StatementNames`). */
const RANKING_SHAPES = 64;
/** The most matches ranked by one statement, and how many terms all rankings kept may hold. */
const SMALL_RANKING = 2000;
const RANKING_CACHE_WEIGHT = 500_000;
/** How many seqs the first pages of broad rankings kept may hold together. */
const FIRST_PAGES_WEIGHT = 100_000;
/** A page is read by walking when it should be full after at most this many terms. */
const WALK_ROWS = 20_000;
/** How long a count taken at an earlier revision still serves to choose a read plan. */
const ESTIMATE_MS = 5 * 60_000;
/** How often an instance that writes prunes the change log (kept-counts.ts). */
const PRUNE_EVERY_MS = 60_000;
/** Orders that an index holds as they are (a mixed ASC/DESC order has none). */
const WALKABLE = new Set(['created', 'term', 'id']);

type TokenRow = StoredToken;
const TOKEN_COLUMNS = 'name, lookup, hash, kind, created_at AS "createdAt"';

function revisionSlot(): number {
  return Math.floor(Math.random() * REVISION_SLOTS);
}
