import type Database from 'better-sqlite3';
import type { ListOptions, TermFilter, TextFilter } from '../../glossary/filters.ts';
import type { SortKey, Term } from '../../glossary/term.ts';
import type { TermStore } from '../../glossary/term-store.ts';
import { rankInMemory } from '../../glossary/text-match.ts';
import { gatherById, gatherOne } from '../gathered-reads.ts';
import { firstChunkThenSnapshot, LIST_CHUNK } from '../list-chunks.ts';
import { RevisionCache } from '../revision-cache.ts';
import { foldsOf, importOutcomes, LiveNames } from '../term-names.ts';
import { guard } from './errors.ts';
import type { HistoryReads } from './history.ts';
import { planMemory } from './plan.ts';
import { createReads, type Reads } from './read-statements.ts';
import type { Reader, SnapshotReaders } from './snapshot-readers.ts';
import { type TermRow, termById, toTerm } from './term-rows.ts';
import type { Vocabulary } from './vocabulary.ts';

type ReadMethods = Pick<
  TermStore,
  | 'get'
  | 'list'
  | 'count'
  | 'rankAtOnce'
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
): ReadMethods {
  const main: Reader = { db, reads: createReads(db) };
  const memory = planMemory();
  // Counting a large filter reads its whole index: a count is kept for as long as the
  // glossary stays at the revision it was taken at (rule 3), also when other processes write.
  const counts = new RevisionCache<number>();

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
   * The terms `filter` finds, in creation order, if they are at most RANKED_IN_MEMORY: a count
   * kept of the last minute (the count of a page's `X-Total-Count`, of this revision or, under
   * a stream of writes, of one just before) says when they are more, without a statement;
   * otherwise one more row than that is asked for. Either way answers the same ranking.
   */
  function fewMatches(filter: TermFilter, revision: string): TermRow[] | undefined {
    const key = countKey(filter);
    const kept = counts.current(revision, key) ?? counts.recent(key, COUNT_HINT_MS);
    if (kept !== undefined && kept > RANKED_IN_MEMORY) return undefined;
    const p = main.reads.plan(filter, memory, revision, RANKED_IN_MEMORY + 1);
    const rows = main.reads.chunk(p, 'created', { limit: RANKED_IN_MEMORY + 1, offset: 0 });
    return rows.length > RANKED_IN_MEMORY ? undefined : rows;
  }

  /** The page of a ranking read level by level; undefined if a level is longer than a chunk. */
  function levelsRead(
    filter: TermFilter,
    levels: readonly TextFilter[],
    page: Pick<ListOptions, 'limit' | 'offset'>,
    revision: string,
  ): TermRow[] | undefined {
    let offset = page.offset ?? 0;
    let remaining = page.limit ?? Number.POSITIVE_INFINITY;
    const rows: TermRow[] = [];
    for (const level of levels) {
      if (remaining <= 0) break;
      const p = main.reads.plan({ ...filter, text: level }, memory, revision, offset + remaining);
      if (offset > 0) {
        const count = main.reads.count(p, offset + 1);
        if (offset >= count) {
          offset -= count;
          continue;
        }
      }
      const found = main.reads.chunk(p, 'created', {
        limit: Math.min(remaining, LIST_CHUNK + 1),
        offset,
      });
      if (found.length > LIST_CHUNK) return undefined;
      rows.push(...found);
      remaining -= found.length;
      offset = 0;
    }
    return rows;
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
    // A ranking (glossary/ranking.ts) in one read transaction, where reading it level by level
    // took one each: a one-typo `q` has ten levels, most of which find nothing, and a read
    // transaction each (two locking system calls) was a fifth of its CPU. The few terms of a
    // query that finds at most RANKED_IN_MEMORY are read once and each told its level in
    // memory (text-match.ts), where asking the index level by level cost a statement a level
    // (70-110 µs each at 100,000 terms). Otherwise each level is read as far as the page goes,
    // as long as each ends within a chunk; a longer level leaves the ranking to be read level
    // by level (its first chunk then read twice, as any long list's is).
    async rankAtOnce(filter, levels, page, matches) {
      const terms = guard(() =>
        together(() => {
          const now = main.reads.revision();
          const few = matches && fewMatches({ ...filter, text: matches }, now);
          const offset = page.offset ?? 0;
          const end = page.limit === undefined ? undefined : offset + page.limit;
          if (few) return rankInMemory(few.map(toTerm), levels).slice(offset, end);
          const rows = levelsRead(filter, levels, page, now);
          return rows?.map(toTerm);
        }),
      );
      return terms && chunksOf(terms);
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
/** How old a count may be to choose how a ranking is read (not what it answers). */
const COUNT_HINT_MS = 60_000;

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
