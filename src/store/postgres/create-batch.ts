import type pg from 'pg';
import type { Change } from '../../glossary/history.ts';
import { NameConflictError } from '../../glossary/other-names.ts';
import type { Term } from '../../glossary/term.ts';
import { foldsOf, importOutcomes, storedTerm } from '../term-names.ts';
import { lockAndReadSql, namesAfterLocks } from './name-locks.ts';
import {
  ALL_VECTOR,
  nameColumns,
  type TermValues,
  termValues,
  wordsOfValues,
} from './term-rows.ts';
import type { Vocabulary } from './vocabulary.ts';

/**
 * Several `POST /terms` in one transaction (create-batches.ts gathers them): each is stored
 * exactly as it would be alone, one after the other in the order given, or refused alone.
 *
 * In BEGIN's round trip, after the transaction took its xid (transaction.ts, feed.ts): the
 * ids are claimed in `term_ids` in ascending order (one more live term each, as a create
 * alone counts it), then the names of every item are locked (buckets ascending) and the live
 * names read. Ids before names, each in ascending order, as every other write takes them
 * (name-locks.ts): no wait can close a cycle with another batch, an import or a single
 * write. Rule 8 is then checked item after item, each against the live names and the items
 * accepted before it (`importOutcomes`, as a sequence of creates would see them); the claims
 * of the refused are given back, and the accepted are stored in one statement in their
 * order, which draws their `seq` and revisions (`created_rev`) in that order. The
 * vocabulary, the revision counter, NOTIFY and COMMIT then follow once for all.
 */

/** An id inlined into SQL: the caller checked it is an integer within ±(2^53 − 1). */
const idLiteral = (id: number) => {
  if (!Number.isSafeInteger(id)) throw new Error(`not an id: ${id}`);
  return String(id);
};

/**
 * Claims the ids (each as many times as it occurs), ascending; answers which rows are new.
 * Without parameters, so that it joins BEGIN's round trip.
 */
function claimSql(ids: readonly number[]): string {
  const counts = new Map<number, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  const rows = [...counts]
    .sort(([a], [b]) => a - b)
    .map(([id, n]) => `(${idLiteral(id)}::bigint, ${n})`);
  return `INSERT INTO term_ids (id, live)
    SELECT id, n FROM (VALUES ${rows.join(', ')}) v (id, n) ORDER BY id
    ON CONFLICT (id) DO UPDATE SET live = term_ids.live + EXCLUDED.live
    RETURNING id, xmax = 0 AS fresh`;
}

/** Gives back the claims of refused items: `$1` rows claimed new and now unused, `$2`/`$3` counts. */
const UNCLAIM = `
  WITH gone AS (DELETE FROM term_ids WHERE id = ANY($1::bigint[]))
  UPDATE term_ids t SET live = t.live - r.n
  FROM unnest($2::bigint[], $3::int[]) AS r (id, n) WHERE t.id = r.id`;

/**
 * The accepted terms and their names. The rows are inserted in `ord` order, so their `seq`
 * (and `created_rev`) grow in it; the names find their term by that rank, as an id may occur
 * twice.
 */
const STORE = `
  WITH input AS (
    SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                         $7::text[], $8::text[], $9::jsonb[], $10::jsonb[], $11::text[],
                         $12::text[], $13::bigint[], $14::text[])
      WITH ORDINALITY AS t (id, term, term_folded, definition, category, see_also, name_words,
                            definition_words, aliases, avoid, alias_words, avoid_words, at, by,
                            ord)
  ), stored AS (
    INSERT INTO terms (id, term, term_folded, definition, category, see_also, aliases, avoid,
                       name_words, alias_words, avoid_words, all_vec, created_at, created_by)
    SELECT id, term, term_folded, definition, category, see_also::jsonb, aliases, avoid,
           name_words, alias_words, avoid_words,
           ${ALL_VECTOR('name_words', 'alias_words', 'definition_words', 'avoid_words')}, at, by
    FROM input
    ORDER BY ord
    RETURNING seq
  ), ranked AS (
    SELECT seq, row_number() OVER (ORDER BY seq) AS ord FROM stored
  )
  INSERT INTO term_names (seq, kind, fold, key)
  SELECT r.seq, n.kind, n.fold, n.key
  FROM unnest($15::bigint[], $16::text[], $17::text[], $18::text[]) AS n (ord, kind, fold, key)
  JOIN ranked r USING (ord)`;

export interface Creation {
  term: Term;
  change: Change;
}

/** A batch ready to write: its terms in stored form and the SQL of BEGIN's round trip. */
export interface PreparedBatch {
  terms: Term[];
  values: TermValues[];
  changes: Change[];
  first: string;
}

export function prepareBatch(creations: readonly Creation[]): PreparedBatch {
  const terms = creations.map((c) => storedTerm(c.term));
  const values = terms.map(termValues);
  const first = `${claimSql(terms.map((t) => t.id))}; ${lockAndReadSql(terms.flatMap(foldsOf))}`;
  return { terms, values, changes: creations.map((c) => c.change), first };
}

/**
 * The batch's work inside `write`, given the results of BEGIN's round trip: answers each
 * item's refusal (undefined when stored), in order.
 */
export async function createBatch(
  client: pg.ClientBase,
  batch: PreparedBatch,
  first: readonly pg.QueryResult[],
  vocabulary: Vocabulary,
): Promise<(NameConflictError | undefined)[]> {
  const { terms, values, changes } = batch;
  // BEGIN, the xid, the claim, the name locks, the live names.
  const claims = (first[2]?.rows ?? []) as { id: number; fresh: boolean }[];
  const outcomes = importOutcomes(terms, new Set(), namesAfterLocks(first));
  const refusals = outcomes.map((o) => (o instanceof NameConflictError ? o : undefined));
  const accepted = terms.flatMap((_, i) => (refusals[i] ? [] : [i]));
  if (accepted.length < terms.length) await unclaim(client, terms, refusals, claims);
  if (accepted.length === 0) return refusals;
  const columns = Array.from({ length: 12 }, (_, c) => accepted.map((i) => values[i]?.[c]));
  const now = Date.now();
  const names: [number[], string[], string[], string[]] = [[], [], [], []];
  accepted.forEach((i, rank) => {
    const [kinds, folds, keys] = nameColumns(terms[i] as Term);
    kinds.forEach((kind, n) => {
      names[0].push(rank + 1);
      names[1].push(kind);
      names[2].push(folds[n] as string);
      names[3].push(keys[n] as string);
    });
  });
  await client.query(STORE, [
    ...columns,
    accepted.map((i) => changes[i]?.at ?? now),
    accepted.map((i) => changes[i]?.by ?? null),
    ...names,
  ]);
  await vocabulary.record(client, wordsOfValues(accepted.map((i) => values[i] as TermValues)));
  return refusals;
}

/** Gives back what the refused items claimed: a row claimed new that no item uses goes. */
async function unclaim(
  client: pg.ClientBase,
  terms: readonly Term[],
  refusals: readonly (NameConflictError | undefined)[],
  claims: readonly { id: number; fresh: boolean }[],
): Promise<void> {
  const refused = new Map<number, number>();
  const used = new Set<number>();
  terms.forEach((term, i) => {
    if (refusals[i]) refused.set(term.id, (refused.get(term.id) ?? 0) + 1);
    else used.add(term.id);
  });
  const fresh = new Set(claims.filter((c) => c.fresh).map((c) => c.id));
  const gone = [...refused.keys()].filter((id) => fresh.has(id) && !used.has(id));
  const fewer = [...refused].filter(([id]) => !gone.includes(id));
  await client.query(UNCLAIM, [gone, fewer.map(([id]) => id), fewer.map(([, n]) => n)]);
}
