import type pg from 'pg';
import type { Change } from '../../glossary/history.ts';
import { type NameConflictError, namesOf } from '../../glossary/other-names.ts';
import type { Term } from '../../glossary/term.ts';
import type { ImportOutcome } from '../../glossary/term-store.ts';
import { nameKey } from '../../glossary/words.ts';
import { liveNamesOf, lockNames } from './name-locks.ts';
import { encodeNul } from './nul-text.ts';
import { ALL_VECTOR, type TermValues, wordsOfValues } from './term-rows.ts';
import { MERGE_PENDING_LISTS, RAISE_PENDING_LISTS } from './upkeep.ts';
import type { Vocabulary } from './vocabulary.ts';

/**
 * The bulk import of the PostgreSQL store (`importMany`): its ids claimed, its names checked
 * (rule 8) and its terms stored in a few statements, not a round trip per item.
 */

/** The words columns of `all_vec`: those of name, aliases, definition and names to avoid. */
const ALL_WORDS = (prefix = '') =>
  ALL_VECTOR(
    `${prefix}name_words`,
    `${prefix}alias_words`,
    `${prefix}definition_words`,
    `${prefix}avoid_words`,
  );

/**
 * Bulk import in three statements, not a round trip per item. `term_ids` holds every id ever
 * stored under a primary key, with the number of its live terms: the bulk path claims its ids
 * there (a new id, or one whose terms were all removed, `CLAIM`), and creates only the terms
 * whose id it claimed. When two requests (through any instances) claim the same id at once,
 * the primary key or the row lock makes the second wait for the first to commit and then see
 * the claim taken, so the id is created exactly once and the other request answers "already
 * exists". Ids are claimed in ascending order, so two batches overlapping in several ids
 * always wait in the same order and cannot deadlock. Every other write of an id (POST /terms,
 * edits) takes the same row lock, so the bulk path also sees ids created or removed by them.
 * Then the names of the claimed items are locked and checked (rule 8); the claims of the
 * items refused are given back (`UNCLAIM`: a new id's row goes, a revived one counts 0 again),
 * and the others are stored in request order with their names (`IMPORT`).
 */
const CLAIM = `
  INSERT INTO term_ids (id, live) SELECT id, 1 FROM unnest($1::bigint[]) id ORDER BY id
  ON CONFLICT (id) DO UPDATE SET live = 1 WHERE term_ids.live = 0
  RETURNING id, xmax = 0 AS fresh`;

const UNCLAIM = `
  WITH gone AS (DELETE FROM term_ids WHERE id = ANY($1::bigint[]))
  UPDATE term_ids SET live = 0 WHERE id = ANY($2::bigint[])`;

const IMPORT = `
  WITH input AS (
    SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                         $7::text[], $8::text[], $9::jsonb[], $10::jsonb[], $11::text[],
                         $12::text[])
      WITH ORDINALITY AS t (id, term, term_folded, definition, category, see_also, name_words,
                            definition_words, aliases, avoid, alias_words, avoid_words, ord)
  ), stored AS (
    INSERT INTO terms (id, term, term_folded, definition, category, see_also, aliases, avoid,
                       name_words, alias_words, avoid_words, all_vec, created_at, created_by)
    SELECT id, term, term_folded, definition, category, see_also::jsonb, aliases, avoid,
           name_words, alias_words, avoid_words, ${ALL_WORDS()}, $13, $14
    FROM input
    ORDER BY ord
    RETURNING seq, id
  )
  INSERT INTO term_names (seq, kind, fold, key)
  SELECT s.seq, n.kind, n.fold, n.key
  FROM unnest($15::bigint[], $16::text[], $17::text[], $18::text[]) AS n (id, kind, fold, key)
  JOIN stored s USING (id)`;

/**
 * An import of this many terms or more fills the search indexes' pending lists past their
 * 64 kB (a hundred terms filled at most 5 of their 8 pages), so it raises their limit for its
 * transaction and empties them itself before it commits: one merge of sorted entries instead
 * of one every 64 kB, 138 → 88 µs a term of the database's time at 100,000 terms, and no
 * search after it reads a long list. While it runs, searches read the longer lists, and a
 * single write that finds them past its own 64 kB empties them, the import's entries too.
 */
const RAISED_FROM = 128;

/**
 * Imports the terms (stored form, values made before the transaction); answers each one's
 * outcome, in order.
 */
export async function importTerms(
  client: pg.ClientBase,
  terms: readonly Term[],
  values: readonly TermValues[],
  change: Change,
  vocabulary: Vocabulary,
): Promise<ImportOutcome[]> {
  const { rows: claims } = await client.query<{ id: number; fresh: boolean }>(CLAIM, [
    values.map((row) => row[0]),
  ]);
  if (claims.length === 0) return terms.map(() => 'exists');
  const fresh = new Map(claims.map((claim) => [claim.id, claim.fresh]));
  const claimed = terms.filter((term) => fresh.has(term.id));
  // Each item's names, folded once: the fold is the costliest part of judging an item.
  const namesOfClaimed = claimed.map(namesOf);
  const folds = [...new Set(namesOfClaimed.flatMap((names) => names.map((name) => name.fold)))];
  await lockNames(client, folds);
  const live = await liveNamesOf(client, folds);
  // Rule 8 in request order (as `importOutcomes`): each item against the live names and the
  // items stored before it, which join `live` under seqs after every live term's.
  const refused = new Map<number, NameConflictError>();
  const names: [number[], string[], string[], string[]] = [[], [], [], []];
  const keyOfName = new Map(values.map((row) => [row[0], row[6]]));
  let seq = Number.MAX_SAFE_INTEGER - claimed.length;
  claimed.forEach((term, i) => {
    const termNames = namesOfClaimed[i] ?? [];
    const conflict = live.conflict(term, undefined, termNames);
    if (conflict) {
      refused.set(term.id, conflict);
      return;
    }
    seq += 1;
    for (const name of termNames) {
      live.add({ fold: name.fold, kind: name.kind, id: term.id, seq });
      names[0].push(term.id);
      names[1].push(name.kind);
      names[2].push(encodeNul(name.fold));
      // A name's key is its words joined by spaces: the name's are in its values already.
      names[3].push(name.kind === 'term' ? (keyOfName.get(term.id) ?? '') : nameKey(name.text));
    }
  });
  if (refused.size > 0) {
    const ids = [...refused.keys()];
    await client.query(UNCLAIM, [
      ids.filter((id) => fresh.get(id)),
      ids.filter((id) => !fresh.get(id)),
    ]);
  }
  const stored = values.filter((row) => fresh.has(row[0]) && !refused.has(row[0]));
  if (stored.length > 0) {
    const columns = Array.from({ length: 12 }, (_, i) => stored.map((row) => row[i]));
    // Raised only for a role that may empty the lists: another's would stay long until
    // autovacuum (upkeep.ts).
    const raised =
      stored.length >= RAISED_FROM && (await client.query(RAISE_PENDING_LISTS)).rowCount === 1;
    await client.query(IMPORT, [...columns, change.at ?? Date.now(), change.by, ...names]);
    await vocabulary.record(client, wordsOfValues(stored));
    if (raised) await client.query(MERGE_PENDING_LISTS);
  }
  return terms.map(
    (term): ImportOutcome => refused.get(term.id) ?? (fresh.has(term.id) ? 'created' : 'exists'),
  );
}
