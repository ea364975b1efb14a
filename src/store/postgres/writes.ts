import type pg from 'pg';
import type { Change, HistoryAction } from '../../glossary/history.ts';
import type { Term } from '../../glossary/term.ts';
import { historyEntry, historyLastAt } from './history.ts';
import {
  ALL_VECTOR,
  COLUMNS,
  type Row,
  type TermValues,
  termValues,
  toTerm,
  wordsOfTerm,
  wordsOfValues,
} from './term-rows.ts';
import type { Vocabulary } from './vocabulary.ts';

/**
 * The write transactions of the PostgreSQL store (create, import, update, remove, restore).
 * Each runs inside `write` (transaction.ts: READ COMMITTED, committed before it resolves).
 * Every write that touches an id first locks that id's row in `term_ids`, so writes of one id
 * queue through every instance; the next statement (a new snapshot under READ COMMITTED) then
 * reads the term as the previous writer left it.
 */

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

export async function createTerm(
  client: pg.ClientBase,
  term: Term,
  change: Change,
  vocabulary: Vocabulary,
): Promise<void> {
  const values = termValues(term);
  await client.query(CREATE, [...values, change.at ?? Date.now(), change.by]);
  await vocabulary.record(client, wordsOfValues([values]));
}

/** Imports the terms (their values made before the transaction); answers the ids created. */
export async function importTerms(
  client: pg.ClientBase,
  values: readonly TermValues[],
  change: Change,
  vocabulary: Vocabulary,
): Promise<Set<number>> {
  const columns = Array.from({ length: 8 }, (_, i) => values.map((row) => row[i]));
  const { rows } = await client.query<{ id: number }>(IMPORT, [
    ...columns,
    change.at ?? Date.now(),
    change.by,
  ]);
  const created = new Set(rows.map((row) => row.id));
  await vocabulary.record(client, wordsOfValues(values.filter((row) => created.has(row[0]))));
  return created;
}

interface LiveRow extends Row {
  seq: number;
  created_rev: number;
  created_at: number;
  created_by: string | null;
  /** The time of the newest entry recorded in the id's history, if any. */
  last_at: number | null;
}

const LIVE_COLUMNS = `${COLUMNS}, seq, created_rev, created_at, created_by,
  (SELECT at FROM term_history h WHERE h.id = terms.id ORDER BY revision DESC LIMIT 1) AS last_at`;

/** Locks the id; false when it never existed. */
async function lockId(client: pg.ClientBase, id: number): Promise<boolean> {
  const { rowCount } = await client.query('SELECT 1 FROM term_ids WHERE id = $1 FOR UPDATE', [id]);
  return (rowCount ?? 0) > 0;
}

async function earliestLive(client: pg.ClientBase, id: number): Promise<LiveRow | undefined> {
  const { rows } = await client.query<LiveRow>(
    `SELECT ${LIVE_COLUMNS} FROM terms WHERE id = $1 ORDER BY seq LIMIT 1`,
    [id],
  );
  return rows[0];
}

/**
 * One statement that records a change: the term's creation first, if the history does not
 * hold it yet (its state is about to be lost), the change itself (`steps`, data-modifying
 * CTEs), then the history entry of the change under a fresh revision number. `$1..$9` are the
 * term's seq, id, created_rev, created_at, created_by and creation state, the change's time
 * and author, and the state after the change; `steps` use `$10` on.
 */
function recordingChange(action: HistoryAction, steps: readonly string[]): string {
  return `
    WITH kept AS (
      INSERT INTO term_history (revision, seq, id, action, at, by, term)
      VALUES ($3, $1, $2, 'created', $4, $5, $6)
      ON CONFLICT (revision) DO NOTHING
    )${steps.map((step, i) => `, step${i} AS (${step})`).join('')}
    INSERT INTO term_history (revision, seq, id, action, at, by, term)
    VALUES (nextval('term_revision'), $1, $2, '${action}', $7, $8, $9)`;
}

/**
 * The time of a change of the id: read once the id is locked, so in the order its revisions
 * are drawn, and never before the id's newest entry (a clock set back, or another instance's
 * clock behind ours): the id's history does not go back in time as its revisions grow.
 */
function timeOf(change: Change, ...floor: (number | null)[]): number {
  return change.at ?? Math.max(Date.now(), ...floor.map((at) => at ?? 0));
}

function recordingParams(row: LiveRow, change: Change, after: Term): unknown[] {
  return [
    row.seq,
    row.id,
    row.created_rev,
    row.created_at,
    row.created_by,
    JSON.stringify(toTerm(row)),
    timeOf(change, row.created_at, row.last_at),
    change.by,
    JSON.stringify(after),
  ];
}

const OVERWRITE = `UPDATE terms SET term = $10, term_folded = $11, definition = $12,
                     category = $13, see_also = $14::jsonb, name_words = $15,
                     all_vec = ${ALL_VECTOR('$15', '$16')}
                   WHERE seq = $1`;
const UPDATE = recordingChange('updated', [OVERWRITE]);
const RESTORE_LIVE = recordingChange('restored', [OVERWRITE]);
const REMOVE = recordingChange('deleted', [
  'DELETE FROM terms WHERE seq = $1',
  'UPDATE term_ids SET live = live - 1 WHERE id = $2',
]);

/** The term row's new values, as `$10..$16`. */
function newValues(values: TermValues): unknown[] {
  return values.slice(1);
}

export async function updateTerm(
  client: pg.ClientBase,
  id: number,
  edit: (current: Term) => Term,
  change: Change,
  vocabulary: Vocabulary,
): Promise<Term | undefined> {
  if (!(await lockId(client, id))) return undefined;
  const row = await earliestLive(client, id);
  if (!row) return undefined;
  const current = toTerm(row);
  const next = edit(current);
  if (next.id !== id) throw new Error('a term keeps its id when it changes');
  const values = termValues(next);
  await client.query(UPDATE, [...recordingParams(row, change, next), ...newValues(values)]);
  await vocabulary.record(client, wordsOfValues([values]), {
    words: wordsOfTerm(current),
    seq: row.seq,
  });
  return next;
}

export async function removeTerm(
  client: pg.ClientBase,
  id: number,
  confirm: (current: Term) => void,
  change: Change,
  vocabulary: Vocabulary,
): Promise<Term | undefined> {
  if (!(await lockId(client, id))) return undefined;
  const row = await earliestLive(client, id);
  if (!row) return undefined;
  const current = toTerm(row);
  confirm(current);
  await client.query(REMOVE, recordingParams(row, change, current));
  await vocabulary.record(client, [], { words: wordsOfTerm(current), seq: row.seq });
  return current;
}

/** A re-created term comes back at its old place (`seq`) with its original creation. */
const RECREATE = `
  WITH creation AS (
    SELECT revision, at, by FROM term_history WHERE seq = $1 AND action = 'created'
  ), live AS (
    UPDATE term_ids SET live = live + 1 WHERE id = $2
  ), back AS (
    INSERT INTO terms (seq, id, term, term_folded, definition, category, see_also,
                       name_words, all_vec, created_rev, created_at, created_by)
    OVERRIDING SYSTEM VALUE
    SELECT $1, $2, $3, $4, $5, $6, $7::jsonb, $14, ${ALL_VECTOR('$14', '$15')},
           coalesce(c.revision, $8), coalesce(c.at, $9), CASE WHEN c.revision IS NULL THEN $10 ELSE c.by END
    FROM (SELECT 1) one LEFT JOIN creation c ON true
  )
  INSERT INTO term_history (revision, seq, id, action, at, by, term)
  VALUES (nextval('term_revision'), $1, $2, 'restored', $11, $12, $13)`;

export async function restoreTerm(
  client: pg.ClientBase,
  id: number,
  revision: number,
  confirm: (current: Term | undefined) => void,
  change: Change,
  vocabulary: Vocabulary,
): Promise<Term | 'no-such-revision' | undefined> {
  if (!(await lockId(client, id))) return undefined;
  const entry = await historyEntry(client, id, revision);
  if (!entry) return 'no-such-revision';
  const row = await earliestLive(client, id);
  confirm(row && toTerm(row));
  const values = termValues(entry.term);
  await vocabulary.record(
    client,
    wordsOfValues([values]),
    row && { words: wordsOfTerm(toTerm(row)), seq: row.seq },
  );
  if (row) {
    await client.query(RESTORE_LIVE, [
      ...recordingParams(row, change, entry.term),
      ...newValues(values),
    ]);
    return entry.term;
  }
  const [, name, folded, definition, category, seeAlso, nameWords, definitionWords] = values;
  await client.query(RECREATE, [
    entry.seq,
    id,
    name,
    folded,
    definition,
    category,
    seeAlso,
    entry.revision,
    entry.at,
    entry.by,
    timeOf(change, await historyLastAt(client, id)),
    change.by,
    JSON.stringify(entry.term),
    nameWords,
    definitionWords,
  ]);
  return entry.term;
}
