import type pg from 'pg';
import type { ListOptions, TermFilter } from '../../glossary/filters.ts';
import type { TermStore } from '../../glossary/term-store.ts';
import { gatherById, gatherOne } from '../gathered-reads.ts';
import { firstChunkThenSnapshot } from '../list-chunks.ts';
import { RevisionCache } from '../revision-cache.ts';
import { foldsOf, importOutcomes } from '../term-names.ts';
import { historyPage } from './history.ts';
import type { KeptCounts } from './kept-counts.ts';
import type { ListSlots } from './list-slots.ts';
import { liveNamesOf } from './name-locks.ts';
import { query, withClient } from './pool.ts';
import { rankingMethods } from './ranking-reads.ts';
import { streamRows } from './stream-rows.ts';
import { COLUMNS, listQuery, type ReadPlan, type Row, toTerm } from './term-rows.ts';
import type { Vocabulary } from './vocabulary.ts';

type ReadMethods = Pick<
  TermStore,
  | 'get'
  | 'list'
  | 'count'
  | 'revision'
  | 'similarWords'
  | 'previewImport'
  | 'history'
  | 'rankAtOnce'
  | 'firstOfLevels'
>;

/** A page is read by walking when it should be full after at most this many terms. */
const WALK_ROWS = 20_000;
/** How long a count taken at an earlier revision still serves to choose a read plan. */
const ESTIMATE_MS = 5 * 60_000;
/** Orders that an index holds as they are (a mixed ASC/DESC order has none). */
const WALKABLE = new Set(['created', 'term', 'id']);

/** The PostgreSQL store's reads. */
export function readMethods(
  pool: pg.Pool,
  slots: ListSlots,
  vocabulary: Vocabulary,
  kept: KeptCounts,
): ReadMethods {
  // The words of a `q` are looked up together: one look at what is new serves them all.
  const syncVocabulary = gatherOne(() =>
    withClient(pool, 'vocabulary failed', (client) => vocabulary.sync(client)),
  );

  // The glossary's revision, and with it the vocabulary's newest number (of a word added or
  // removed, or purged) and the statement's snapshot (what a first page read after it saw at
  // least, ranking-reads.ts): a `q` reads them, and one statement a turn serves every reader.
  // The revision is the sum of the write counters (transaction.ts).
  const glossaryState = gatherOne(async () => {
    const rows = await query<{ revision: string; words: string | null; snapshot: string }>(
      pool,
      `SELECT (SELECT identity FROM glossary_identity) || '.' || coalesce(sum(value), 0) AS revision,
              greatest((SELECT max(rev) FROM vocabulary),
                       (SELECT purged FROM vocabulary_state)) AS words,
              pg_current_snapshot()::text AS snapshot
       FROM glossary_revision`,
      [],
      'glossary-state',
    );
    const row = rows[0];
    return {
      revision: row?.revision ?? '',
      words: Number(row?.words ?? -1),
      snapshot: row?.snapshot ?? '',
    };
  });
  const revisionOf = async () => (await glossaryState()).revision;

  // Counts, kept for as long as the glossary stays at the revision they were taken at (rule
  // 3): `X-Total-Count` and the choice below read them again and again. After a write, the
  // change log brings a count up to date without counting again (kept-counts.ts).
  const counts = new RevisionCache<number>();
  const countOf = (revision: string, filter: TermFilter) =>
    counts.get(revision, filter, () => kept.count(filter));

  /**
   * How a page of a filtered list is read (see `ReadPlan`). PostgreSQL's own estimate of a
   * word's, substring's or link's frequency is too rough to choose well, so the choice is made from
   * the filter's count: walk when the page should be full after at most WALK_ROWS terms, else
   * read the matches through their index. The choice needs no exact count: one taken in the
   * last ESTIMATE_MS at an earlier revision serves (writes seldom move a filter across the
   * line, and then only make a page slower), so a write does not make the next page of every
   * broad search pay for counting its matches again. An exact name (the first level of `q`)
   * has few terms: they are gathered through the name's and the aliases' key indexes (walking
   * in creation order to find them, the planner's choice for its OR, read the whole table).
   */
  async function readPlan(filter: TermFilter, options: ListOptions): Promise<ReadPlan> {
    return (await estimatedPlan(filter, options)).plan;
  }

  /** The plan, with the estimate it was chosen by (undefined when it needed none). */
  async function estimatedPlan(
    filter: TermFilter,
    options: ListOptions,
  ): Promise<{ plan: ReadPlan; matches?: number }> {
    if (filter.text?.name?.is !== undefined && !filter.text.words) return { plan: 'index' };
    const indexed = filter.search || filter.text?.words || filter.linksTo !== undefined;
    if (options.limit === undefined || !indexed) return { plan: 'planner' };
    if (!WALKABLE.has(options.sort ?? 'created')) return { plan: 'planner' };
    const revision = await revisionOf();
    const estimate = (of: TermFilter) => counts.recent(of, ESTIMATE_MS) ?? countOf(revision, of);
    const [matches, total] = await Promise.all([estimate(filter), estimate({})]);
    const needed = (options.offset ?? 0) + options.limit;
    const walk = matches > 0 && (needed * total) / matches <= WALK_ROWS;
    return { plan: walk ? 'walk' : 'index', matches };
  }

  // An id registered more than once answers its earliest term (DISTINCT ON keeps the first
  // row of each id in ORDER BY order).
  const getById = gatherById<Row>(async (ids) => {
    const rows = await query<Row>(
      pool,
      `SELECT DISTINCT ON (id) ${COLUMNS} FROM terms WHERE id = ANY($1::bigint[]) ORDER BY id, seq`,
      [ids],
      'terms-by-ids',
    );
    return new Map(rows.map((row) => [row.id, row]));
  });

  return {
    ...rankingMethods(pool, glossaryState, estimatedPlan, (of) => counts.recent(of, ESTIMATE_MS)),
    async get(id) {
      const row = await getById(id);
      return row && toTerm(row);
    },
    async *list(filter, options: ListOptions = {}) {
      const plan = await readPlan(filter, options);
      const first = async (limit: number) => {
        const page = listQuery(filter, { ...options, limit }, plan);
        return query<Row>(pool, page.text, page.values);
      };
      // A list longer than a chunk is read through a cursor, holding one of the list slots.
      yield* firstChunkThenSnapshot(options.limit, first, toTerm, async function* () {
        const { text, values } = listQuery(filter, options, plan);
        const release = await slots.take();
        try {
          yield* streamRows(pool, text, values);
        } finally {
          release();
        }
      });
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
        pool,
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
    async previewImport(terms) {
      return withClient(pool, 'preview failed', async (client) => {
        const { rows } = await client.query<{ id: number }>(
          'SELECT DISTINCT id FROM terms WHERE id = ANY($1::bigint[])',
          [terms.map((term) => term.id)],
        );
        const existing = new Set(rows.map((row) => row.id));
        const live = await liveNamesOf(
          client,
          terms.filter((term) => !existing.has(term.id)).flatMap(foldsOf),
        );
        return importOutcomes(terms, existing, live);
      });
    },
    revision: revisionOf,
    async history(id, page) {
      return withClient(pool, 'history failed', (client) => historyPage(client, id, page));
    },
  };
}
