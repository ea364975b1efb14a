import type pg from 'pg';
import type { ListOptions, TermFilter, TextFilter } from '../../glossary/filters.ts';
import type { Term } from '../../glossary/term.ts';
import type { Ranking, TermStore } from '../../glossary/term-store.ts';
import { rankInMemory } from '../../glossary/text-match.ts';
import { gatherById } from '../gathered-reads.ts';
import { LIST_CHUNK } from '../list-chunks.ts';
import { RevisionCache } from '../revision-cache.ts';
import { sinceSnapshot } from './kept-counts.ts';
import { query } from './pool.ts';
import { StatementNames } from './statement-names.ts';
import {
  COLUMNS,
  filterClauses,
  levelsQuery,
  listQuery,
  type ReadPlan,
  type Row,
  rankedQuery,
  toTerm,
} from './term-rows.ts';

/** How many shapes of a ranking's statement are prepared (see `StatementNames`). */
const RANKING_SHAPES = 64;
/** How many shapes of a first page's statement (`levelsQuery`) are prepared. */
const LEVELS_SHAPES = 64;
/** How many shapes of the statement that reads a query's few matches are prepared. */
const FEW_SHAPES = 64;
/** How many terms a query may find at most for its ranking to be told in memory. */
const RANKED_IN_MEMORY = 64;
/** The most matches ranked by one statement, and how many terms all rankings kept may hold. */
const SMALL_RANKING = 2000;
const RANKING_CACHE_WEIGHT = 500_000;
/**
 * How long a query found to have more than SMALL_RANKING matches is read level by level
 * without asking again. Asking reads SMALL_RANKING + 1 rows (30-45 ms of the server's CPU at
 * 100,000 terms), and under a steady stream of writes, each of which moves the revision, a
 * broad word was asked again at nearly every look-up: 20% of a mixed load's requests cost 85%
 * of its database CPU (docs/performance.md). Writes seldom take a query back under the line,
 * and then the levels answer the same page, only by more statements.
 */
const BROAD_MS = 5 * 60_000;
/** The largest first page read in one statement (`firstOfLevels`). */
const FIRST_PAGE_MAX = 100;
/** How many characters of text the first pages of rankings kept may hold together. */
const FIRST_PAGES_WEIGHT = 4_000_000;
/** How many shapes of the statement that carries a first page across writes are prepared. */
const CARRY_SHAPES = 64;
/**
 * How long after it was read or last carried a first page may be carried on, as a kept count
 * (kept-counts.ts, KEPT_FOR): the log alone keeps it exact, this bounds how long a page is
 * trusted across a database put back to an earlier state, whose transaction ids go back too.
 */
const PAGE_KEPT_MS = 5 * 60_000;

/**
 * PostgreSQL's shortcuts for reading a `q`'s ranking (glossary/ranking.ts reads a ranking
 * level by level, and takes these where a backend has them).
 */
export function rankingMethods(
  pool: pg.Pool,
  stateOf: () => Promise<{ revision: string; snapshot: string }>,
  estimatedPlan: (
    filter: TermFilter,
    options: ListOptions,
  ) => Promise<{ plan: ReadPlan; matches?: number }>,
  recentCount: (filter: TermFilter) => number | undefined,
): Pick<TermStore, 'rankAtOnce' | 'firstOfLevels'> {
  // Rows by seq, gathered like reads by id: the pages of rankings kept by seq (below), asked
  // by many requests in one turn, are read by one statement rather than one each.
  const getBySeq = gatherById<Row & { seq: number }>(async (seqs) => {
    const rows = await query<Row & { seq: number }>(
      pool,
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

  // A query that finds at most RANKED_IN_MEMORY terms reads them alone, and tells their levels
  // in memory (text-match.ts), as SQLite does. Its statement asks the word indexes for the
  // terms any level finds (`matches`), where the ranking's statement asks them for each of its
  // ten levels, twice (in its WHERE and its CASE): a one-typo `q` at 100,000 terms, run
  // alone, took 82-138 µs against 184-355, and its text is 180 characters against 4,800,
  // made at each request. A count of the last minutes that says the matches are more goes to
  // the ranking's statement at once; otherwise one row more than that is asked for first.
  const fewNames = new StatementNames('few', FEW_SHAPES);
  async function fewRanked(filter: TermFilter, ranking: Ranking): Promise<SeqRow[] | undefined> {
    const all = { ...filter, text: ranking.matches };
    if ((recentCount(all) ?? 0) > RANKED_IN_MEMORY) return undefined;
    const { text, values } = listQuery(
      all,
      { limit: RANKED_IN_MEMORY + 1 },
      'planner',
      `seq, ${COLUMNS}`,
    );
    const rows = await query<SeqRow>(pool, text, values, fewNames.nameOf(text));
    if (rows.length > RANKED_IN_MEMORY) return undefined;
    const rowOf = new Map(rows.map((row) => [toTerm(row), row]));
    return rankInMemory([...rowOf.keys()], ranking.levels).map((term) => rowOf.get(term) as SeqRow);
  }

  /** The rows a ranking's statement finds, ranked; null when they are more than SMALL_RANKING. */
  async function rankedRows(
    filter: TermFilter,
    levels: readonly TextFilter[],
  ): Promise<SeqRow[] | null> {
    const { text, values } = rankedQuery(filter, levels, SMALL_RANKING + 1);
    const rows = await query<{ seq: number; level: number } & Row>(
      pool,
      text,
      values,
      rankingNames.nameOf(text),
    );
    if (rows.length > SMALL_RANKING) return null;
    return rows.sort((a, b) => a.level - b.level || a.seq - b.seq);
  }

  /**
   * A first page of up to FIRST_PAGE_MAX terms reads its levels a few at a time, each level
   * at most the page's size in its own plan, in one statement (`levelsQuery`), where reading
   * level by level took a statement per level it reached: a one-typo word reaches five or
   * more (four levels find nothing, then its typo fills the page), and under a steady stream of
   * writes, which moves the revision every few milliseconds, each cost a round trip and its
   * planning again. A statement takes the levels up to the one where the estimates its plans
   * were chosen by (counts of the last minutes) add up to the page; only if they were wrong
   * does the next statement read the levels after them. All the levels in one statement read
   * levels the page never reaches, some costly: a typo's definition level, reading all the
   * terms whose names hold the word it mistypes to find none, took 42 ms at 100,000 terms.
   */
  async function readLevels(
    filter: TermFilter,
    levels: readonly TextFilter[],
    limit: number,
  ): Promise<PageRow[]> {
    const page: PageRow[] = [];
    let next = 0;
    while (next < levels.length && page.length < limit) {
      const batch = [];
      for (let expected = 0; next < levels.length && expected < limit - page.length; ) {
        const level = levels[next] as TextFilter;
        const { plan, matches } = await estimatedPlan({ ...filter, text: level }, { limit });
        batch.push({ level, plan, place: next });
        expected += matches ?? 0;
        next += 1;
      }
      const { text, values } = levelsQuery(filter, batch, limit - page.length);
      const rows = await query<PageRow>(pool, text, values, levelsNames.nameOf(text));
      // Each level's terms come in creation order; the levels in theirs (a stable sort).
      page.push(...rows.sort((a, b) => a.level - b.level).slice(0, limit - page.length));
    }
    return page;
  }
  const levelsNames = new StatementNames('levels', LEVELS_SHAPES);

  /**
   * Whether a page kept at `kept.snapshot` is still the first page: false when none of the
   * changes logged since (kept-counts.ts, `sinceSnapshot`) can be in it, which is when the
   * page is full and each changed row, as it was and as it is, ranks after the page's last
   * term (in a later level, or in its level and created after it), or matches none of the
   * levels; null when the log cannot tell. With the snapshot it answers at.
   */
  async function changedPage(
    filter: TermFilter,
    levels: readonly TextFilter[],
    kept: KeptPage,
  ): Promise<{ changed: boolean | null; snapshot: string }> {
    const values: unknown[] = [kept.snapshot];
    const all = (clauses: string[]) => (clauses.length > 0 ? clauses.join(' AND ') : 'true');
    const base = all(filterClauses({ ...filter, text: undefined }, values));
    const last = kept.last;
    const reached = last ? levels.slice(0, last.place + 1) : levels;
    const conditions = reached.map((level) => `(${all(filterClauses({ text: level }, values))})`);
    if (last) {
      values.push(last.seq);
      conditions[last.place] = `(${conditions[last.place]} AND seq <= $${values.length})`;
    }
    // A row logged before the log had `seq` (migration 12) may be anywhere.
    const changes = `seq IS NULL OR (${base} AND (${conditions.join(' OR ') || 'false'}))`;
    const text = `SELECT ${sinceSnapshot('$1::pg_snapshot', `coalesce(bool_or(${changes}), false)`)}
                    AS changed,
                  pg_current_snapshot()::text AS snapshot`;
    const rows = await query<{ changed: boolean | null; snapshot: string }>(
      pool,
      text,
      values,
      carryNames.nameOf(text),
    );
    const row = rows[0];
    return { changed: row ? row.changed : null, snapshot: row?.snapshot ?? kept.snapshot };
  }
  const carryNames = new StatementNames('first-page-carry', CARRY_SHAPES);

  /**
   * First pages kept with the snapshot they were read after, and carried to the next revision
   * when the writes since cannot have changed them (`changedPage`): under a steady stream of
   * creates, each of which moves the revision, a broad word's page read its levels again after
   * every write (0.27-0.45 ms of the server's CPU each, 3,300 times in 10 s of the mixed load),
   * though new terms come last in their level. The rows are kept with it: a change to one of
   * them is logged as the row it was, which is in the page, so the page is read again.
   */
  const firstPages = new RevisionCache<KeptPage>(
    (page) => page.rows.reduce((sum, row) => sum + row.term.length + row.definition.length, 1),
    FIRST_PAGES_WEIGHT,
  );

  return {
    async rankAtOnce(filter, ranking, page) {
      const what = JSON.stringify([filter, ranking.name]);
      // A query found broad stays broad for a while, whatever was written since (BROAD_MS).
      if (rankings.recent(what, BROAD_MS) === null) return undefined;
      const { revision } = await stateOf();
      // The matched rows in ranked order, when this call is the one that ranks.
      let matched: Row[] | undefined;
      const ranked = await rankings.get(revision, what, async () => {
        const rows =
          (await fewRanked(filter, ranking)) ?? (await rankedRows(filter, ranking.levels));
        if (!rows) return null;
        matched = rows;
        return rows.map((row) => row.seq);
      });
      if (!ranked) return undefined;
      const start = page.offset ?? 0;
      const end = page.limit === undefined ? ranked.length : start + page.limit;
      return matched ? termsOf(matched.slice(start, end)) : rowsOf(ranked.slice(start, end));
    },
    async firstOfLevels(filter, ranking, limit) {
      if (limit > FIRST_PAGE_MAX) return undefined;
      const state = await stateOf();
      const levels = ranking.levels;
      const what = JSON.stringify([filter, ranking.name, limit]);
      const page = await firstPages.get(state.revision, what, async () => {
        let snapshot = state.snapshot;
        const earlier = firstPages.recent(what, PAGE_KEPT_MS);
        if (earlier) {
          const carry = await changedPage(filter, levels, earlier);
          if (carry.changed === false) return { ...earlier, snapshot: carry.snapshot };
          snapshot = carry.snapshot;
        }
        const rows = await readLevels(filter, levels, limit);
        const end = rows.length === limit ? rows.at(-1) : undefined;
        return { rows, snapshot, last: end && { place: end.level, seq: end.seq } };
      });
      return page.rows.map(toTerm);
    },
  };
}

type SeqRow = Row & { seq: number };
type PageRow = SeqRow & { level: number };

/** A ranking's first page, kept (`firstOfLevels`). */
interface KeptPage {
  rows: PageRow[];
  /** A snapshot taken before the page was read: its statements saw at least what it saw. */
  snapshot: string;
  /** The place of the last term's level, and its seq, when the page is full. */
  last?: { place: number; seq: number };
}

/** Rows already read, as terms, a list chunk at a time. */
async function* termsOf(rows: readonly Row[]): AsyncGenerator<Term[]> {
  for (let at = 0; at < rows.length; at += LIST_CHUNK) {
    yield rows.slice(at, at + LIST_CHUNK).map(toTerm);
  }
}
