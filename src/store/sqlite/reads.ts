import type Database from 'better-sqlite3';
import type { ListOptions, TermFilter, TextFilter } from '../../glossary/filters.ts';
import type { SortKey, Term } from '../../glossary/term.ts';
import type { Ranking, TermStore } from '../../glossary/term-store.ts';
import { rankInMemory, termMatcher } from '../../glossary/text-match.ts';
import { gatherById, gatherOne } from '../gathered-reads.ts';
import { firstChunkThenSnapshot, LIST_CHUNK } from '../list-chunks.ts';
import { RevisionCache } from '../revision-cache.ts';
import { foldsOf, importOutcomes, LiveNames } from '../term-names.ts';
import { guard } from './errors.ts';
import type { HistoryReads } from './history.ts';
import { planMemory } from './plan.ts';
import { createReads, type Reads } from './read-statements.ts';
import type { Reader, SnapshotReaders } from './snapshot-readers.ts';
import { termById, toTerm } from './term-rows.ts';
import type { Vocabulary } from './vocabulary.ts';

type ReadMethods = Pick<
  TermStore,
  | 'get'
  | 'list'
  | 'count'
  | 'rankAtOnce'
  | 'firstOfLevels'
  | 'revision'
  | 'similarWords'
  | 'previewImport'
  | 'history'
>;

/**
 * The SQLite store's reads, on its own connection; a list longer than a chunk on one of
 * `readers` (none for an in-memory database, which is one connection).
 */
export function readMethods(
  db: Database.Database,
  readers: SnapshotReaders | undefined,
  vocabulary: Vocabulary,
  historyOf: HistoryReads,
  counts: RevisionCache<number>,
  firstPages: RevisionCache<KeptPage>,
): ReadMethods {
  const main: Reader = { db, reads: createReads(db) };
  const memory = planMemory();

  // Reads by id asked in one turn of the event loop are read together at its end, in one read
  // transaction: after every caller asked, so none misses a write acknowledged before it asked.
  const getById = gatherById(async (ids) => guard(() => main.reads.getMany(ids)));
  // The revision (every list's ETag) is read once for all who asked in the turn, the same way.
  const revisionOf = gatherOne(async () => guard(() => main.reads.revision()));
  // Statements of one read run in one read transaction: the file is locked and unlocked once.
  const inRead = db.transaction((work: () => unknown) => work());
  const together = <T>(work: () => T): T => inRead(work) as T;
  // One read transaction: the page, its count and the live rows from one snapshot.
  const history = db.transaction(historyOf.page);

  /** A list from its start, a chunk at a time, on one connection. */
  function* chunks(
    reads: Reads,
    filter: TermFilter,
    sort: SortKey | 'created',
    offset: number,
    limit: number,
  ): Generator<Term[]> {
    const p = guard(() => reads.plan(filter, memory, undefined, offset + limit));
    let remaining = limit;
    let rows = guard(() =>
      reads.chunk(p, sort, { limit: Math.min(LIST_CHUNK, remaining), offset }),
    );
    for (;;) {
      if (rows.length > 0) yield rows.map(toTerm);
      const after = rows.at(-1);
      remaining -= rows.length;
      if (!after || rows.length < LIST_CHUNK || remaining <= 0) return;
      const next = { limit: Math.min(LIST_CHUNK, remaining), offset: 0, after };
      rows = guard(() => reads.chunk(p, sort, next));
    }
  }

  /** The whole list again, from one snapshot on a connection of its own. */
  function* snapshot(
    filter: TermFilter,
    sort: SortKey | 'created',
    offset: number,
    limit: number,
  ): Generator<Term[]> {
    // An in-memory database is one connection: no other could write to it meanwhile.
    const reader = readers ? guard(() => readers.take()) : main;
    try {
      yield* chunks(reader.reads, filter, sort, offset, limit);
    } finally {
      if (readers) readers.giveBack(reader);
    }
  }

  /**
   * A query that finds at most RANKED_IN_MEMORY terms is ranked in memory (text-match.ts): its
   * terms read once, in one read transaction. Read level by level (glossary/ranking.ts), a
   * one-typo `q` took a read transaction for each of its ten levels, most of which find
   * nothing, and an FTS5 statement of 70-110 µs for four of them. A count of the last minute
   * (a page's `X-Total-Count`) that says the matches are more leaves the ranking to the levels
   * without a statement; otherwise one row more than that is asked for.
   */
  function rankedFew(filter: TermFilter, ranking: Ranking): Term[] | undefined {
    const all = { ...filter, text: ranking.matches };
    if ((counts.recent(countKey(all), COUNT_HINT_MS) ?? 0) > RANKED_IN_MEMORY) return undefined;
    const rows = guard(() =>
      together(() => {
        const p = main.reads.plan(all, memory, main.reads.revision(), RANKED_IN_MEMORY + 1);
        return main.reads.chunk(p, 'created', { limit: RANKED_IN_MEMORY + 1, offset: 0 });
      }),
    );
    if (rows.length > RANKED_IN_MEMORY) return undefined;
    return rankInMemory(rows.map(toTerm), ranking.levels);
  }

  /** The first `limit` terms of the levels in order, read in one read transaction. */
  function firstOfEachLevel(
    filter: TermFilter,
    levels: readonly TextFilter[],
    limit: number,
  ): Pick<KeptPage, 'terms' | 'lastPlace'> {
    return together(() => {
      const terms: Term[] = [];
      let lastPlace: number | undefined;
      for (let place = 0; place < levels.length && terms.length < limit; place += 1) {
        const scoped = { ...filter, text: levels[place] };
        const needed = limit - terms.length;
        const p = main.reads.plan(scoped, memory, undefined, needed);
        const rows = main.reads.chunk(p, 'created', { limit: needed, offset: 0 });
        if (rows.length > 0) lastPlace = place;
        terms.push(...rows.map(toTerm));
      }
      return { terms, lastPlace: terms.length === limit ? lastPlace : undefined };
    });
  }

  return {
    async get(id) {
      const row = await getById(id);
      return row && termById(id, row);
    },
    list(filter, options: ListOptions = {}) {
      const sort = options.sort ?? 'created';
      const offset = options.offset ?? 0;
      const limit = options.limit ?? Number.POSITIVE_INFINITY;
      const first = (size: number) =>
        guard(() =>
          together(() => {
            const p = main.reads.plan(filter, memory, undefined, offset + limit);
            return main.reads.chunk(p, sort, { limit: size, offset });
          }),
        );
      return firstChunkThenSnapshot(options.limit, first, toTerm, () =>
        snapshot(filter, sort, offset, limit),
      );
    },
    async rankAtOnce(filter, ranking, page) {
      const ranked = rankedFew(filter, ranking);
      if (!ranked) return undefined;
      const offset = page.offset ?? 0;
      const end = page.limit === undefined ? undefined : offset + page.limit;
      return chunksOf(ranked.slice(offset, end));
    },
    // A first page is kept until the revision moves, and carried across this process's
    // creates (`carryPages`): a broad word's page read its levels again at every look-up.
    async firstOfLevels(filter, ranking, limit) {
      if (limit > FIRST_PAGE_MAX) return undefined;
      // One read transaction: the revision and the page it is kept at from one snapshot.
      return guard(() =>
        together(() => {
          const now = main.reads.revision();
          const what = JSON.stringify([filter, ranking.name, limit]);
          // Each caller gets an array of its own (the terms themselves are never changed).
          const kept = firstPages.current(now, what);
          if (kept) return [...kept.terms];
          const levels = ranking.levels;
          const ranked = rankedFew(filter, ranking);
          const page = ranked
            ? lastPlaceOf(ranked.slice(0, limit), levels, limit)
            : firstOfEachLevel(filter, levels, limit);
          firstPages.keep(now, what, { filter, levels, ...page });
          return [...page.terms];
        }),
      );
    },
    async count(filter, atMost) {
      const key = countKey(filter);
      return guard(() =>
        together(() => {
          const now = main.reads.revision();
          const cached = counts.current(now, key);
          if (cached !== undefined) return Math.min(cached, atMost ?? cached);
          const p = main.reads.plan(filter, memory, now);
          // A bounded count is not the count: it is answered, not kept.
          if (atMost !== undefined) return main.reads.count(p, atMost);
          const count = main.reads.count(p);
          counts.keep(now, key, count);
          return count;
        }),
      );
    },
    revision: revisionOf,
    async similarWords(word, max) {
      return guard(() => vocabulary.similar(word, max));
    },
    async previewImport(terms) {
      return guard(() => {
        const existing = new Set(main.reads.existing(terms.map((term) => term.id)));
        const folds = terms.filter((term) => !existing.has(term.id)).flatMap(foldsOf);
        return importOutcomes(terms, existing, new LiveNames(main.reads.namesWithFolds(folds)));
      });
    },
    async history(id, page) {
      return guard(() => history.deferred(id, page));
    },
  };
}

/** How many terms a query may find at most for its ranking to be told in memory. */
const RANKED_IN_MEMORY = 64;
/** The largest first page kept (`firstOfLevels`). */
const FIRST_PAGE_MAX = 100;
/** How many characters of text the first pages kept may hold together. */
const FIRST_PAGES_WEIGHT = 4_000_000;

/** A ranking's first page, kept (`firstOfLevels`). */
export interface KeptPage {
  filter: TermFilter;
  levels: readonly TextFilter[];
  terms: Term[];
  /** The place of the last term's level when the page is full. */
  lastPlace?: number;
}

/** The first pages kept, by filter, ranking and size. */
export function keptPages(): RevisionCache<KeptPage> {
  return new RevisionCache<KeptPage>(
    (page) => page.terms.reduce((sum, term) => sum + term.term.length + term.definition.length, 1),
    FIRST_PAGES_WEIGHT,
  );
}

/** A page of the ranking's first terms, with its last term's level when it is full. */
function lastPlaceOf(
  terms: Term[],
  levels: readonly TextFilter[],
  limit: number,
): Pick<KeptPage, 'terms' | 'lastPlace'> {
  const last = terms.at(-1);
  if (!last || terms.length < limit) return { terms };
  const matches = termMatcher(last);
  return { terms, lastPlace: levels.findIndex(matches) };
}

/**
 * After a write that took the glossary from revision `before` to `after` by creating `created`
 * and nothing else, the first pages kept at `before` that none of them enters are carried to
 * `after`: a new term comes last in creation order, so it enters a full page only in a level
 * before its last term's, and a page that is not full in any level. A page whose filter has a
 * substring or a range of names, which SQLite's own comparisons decide, is read again.
 */
export function carryPages(
  pages: RevisionCache<KeptPage>,
  before: string,
  after: string,
  created: readonly Term[],
): void {
  let matchers: ((filter: TextFilter) => boolean)[] | undefined;
  pages.carry(before, after, (_, page) => {
    const { filter, levels, lastPlace } = page;
    if (filter.search !== undefined || filter.range !== undefined) return undefined;
    matchers ??= created.map(termMatcher);
    const reached = lastPlace === undefined ? levels : levels.slice(0, lastPlace);
    const enters = created.some((term, i) => {
      if (filter.category !== undefined && term.category !== filter.category) return false;
      if (filter.linksTo !== undefined && !term.see_also.includes(filter.linksTo)) return false;
      return reached.some((level) => matchers?.[i]?.(level));
    });
    return enters ? undefined : page;
  });
}
/** How old a count may be to choose how a ranking is read (never what it answers). */
const COUNT_HINT_MS = 60_000;

/**
 * The counts kept, by `countKey`. Counting a large filter reads its whole index: a count is kept
 * for as long as the glossary stays at the revision it was taken at (rule 3), also when other
 * processes write, and is carried across this process's creates (`carryCounts`).
 */
export function keptCounts(): RevisionCache<number> {
  return new RevisionCache<number>();
}

/**
 * After a write that took the glossary from revision `before` to `after` by creating `created`
 * and nothing else, the counts kept at `before` are carried to `after`: each adds the created
 * terms its filter matches. At a million terms a broad word has 62,500 terms, and a steady
 * stream of creates moved the revision under every page's `X-Total-Count`: counting again took
 * two thirds of a mixed load's time (docs/performance.md). A count of a substring or of a range
 * of names, which SQLite's own comparisons decide, is left to be counted again; so is every
 * count when another process wrote in between (the revision it was kept at is not `before`).
 */
export function carryCounts(
  counts: RevisionCache<number>,
  before: string,
  after: string,
  created: readonly Term[],
): void {
  // Made once a write, and only if a count is carried: each term's words, for every filter.
  let matchers: ((filter: TextFilter) => boolean)[] | undefined;
  counts.carry(before, after, (key, count) => {
    const [category, search, range, text, linksTo] = parsedKey(key);
    if (search !== null || range !== null) return undefined;
    matchers ??= created.map(termMatcher);
    let more = 0;
    created.forEach((term, i) => {
      if (category !== null && term.category !== category) return;
      if (linksTo !== null && !term.see_also.includes(linksTo)) return;
      if (text !== null && !matchers?.[i]?.(text)) return;
      more += 1;
    });
    return count + more;
  });
}

/** The keys of the counts carried, read back once each (a `q`'s is a large JSON). */
const parsedKeys = new Map<string, CountKeyJson>();
function parsedKey(key: string): CountKeyJson {
  let parsed = parsedKeys.get(key);
  if (!parsed) {
    if (parsedKeys.size >= 256) parsedKeys.clear();
    parsed = JSON.parse(key) as CountKeyJson;
    parsedKeys.set(key, parsed);
  }
  return parsed;
}

/** `countKey` as its JSON reads back: an absent part is null. */
type CountKeyJson = [string | null, string | null, unknown, TextFilter | null, number | null];

const countKey = (filter: TermFilter) => [
  filter.category,
  filter.search,
  filter.range,
  filter.text,
  filter.linksTo,
];

/** Terms already read, a list chunk at a time. */
async function* chunksOf(terms: readonly Term[]): AsyncGenerator<Term[]> {
  for (let at = 0; at < terms.length; at += LIST_CHUNK) yield terms.slice(at, at + LIST_CHUNK);
}
