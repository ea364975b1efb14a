import type pg from 'pg';
import type { Change, HistoryAction } from '../../glossary/history.ts';
import type { Term } from '../../glossary/term.ts';
import { foldsOf, storedTerm } from '../term-names.ts';
import { historyEntry, historyLastAt } from './history.ts';
import { lockAndReadNames } from './name-locks.ts';
import {
  ALL_VECTOR,
  COLUMNS,
  nameColumns,
  type Row,
  type TermValues,
  termValues,
  toTerm,
  wordsOfTerm,
  wordsOfValues,
} from './term-rows.ts';
import type { Vocabulary } from './vocabulary.ts';

/**
 * The write transactions of the PostgreSQL store (create, update, remove, restore; the bulk
 * import is bulk-import.ts).
 * Each runs inside `write` (transaction.ts: READ COMMITTED, committed before it resolves).
 * Every write that touches an id first locks that id's row in `term_ids`, so writes of one id
 * queue through every instance; the next statement (a new snapshot under READ COMMITTED) then
 * reads the term as the previous writer left it.
 *
 * A write that stores names (all but a removal) then locks their folds and checks rule 8
 * against `term_names` (name-locks.ts), and refuses the write (rolled back) on a conflict; an
 * import refuses the item alone. `term_names` follows the term's row in the same statement.
 */

/** The rows of `term_names` of a term at `seq`, from the arrays of `nameColumns`. */
const NAMES_OF = (seq: string, kinds: string, folds: string, keys: string) => `
  INSERT INTO term_names (seq, kind, fold, key)
  SELECT ${seq}::bigint, kind, fold, key FROM unnest(${kinds}::text[], ${folds}::text[], ${keys}::text[])
    AS n (kind, fold, key)`;

/** Locks the term's names and refuses it if it breaks rule 8 (`self`: the seq it replaces). */
async function checkNames(client: pg.ClientBase, term: Term, self?: number): Promise<void> {
  const conflict = (await lockAndReadNames(client, foldsOf(term))).conflict(term, self);
  if (conflict) throw conflict;
}

/** POST /terms: counts one more live term for the id (locking its row first), then stores it. */
const CREATE = `
  WITH claimed AS (
    INSERT INTO term_ids (id, live) VALUES ($1, 1)
    ON CONFLICT (id) DO UPDATE SET live = term_ids.live + 1
    RETURNING id
  )
  INSERT INTO terms (id, term, term_folded, definition, category, see_also, name_words,
                     aliases, avoid, alias_words, avoid_words, all_vec, created_at, created_by)
  SELECT $1, $2, $3, $4, $5, $6::jsonb, $7, $9::jsonb, $10::jsonb, $11, $12,
         ${ALL_VECTOR('$7', '$11', '$8', '$12')}, $13, $14 FROM claimed
  RETURNING seq`;

const CREATE_NAMES = NAMES_OF('$1', '$2', '$3', '$4');

export async function createTerm(
  client: pg.ClientBase,
  input: Term,
  change: Change,
  vocabulary: Vocabulary,
): Promise<void> {
  const term = storedTerm(input);
  const values = termValues(term);
  const { rows } = await client.query<{ seq: number }>(CREATE, [
    ...values,
    change.at ?? Date.now(),
    change.by,
  ]);
  await checkNames(client, term);
  await client.query(CREATE_NAMES, [rows[0]?.seq, ...nameColumns(term)]);
  await vocabulary.record(client, wordsOfValues([values]));
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

/**
 * The term row's new values are `$10..$20` (`newValues`), its names `$21..$23`
 * (`nameColumns`): the old names go and the new ones come in the same statement.
 */
const OVERWRITE = [
  `UPDATE terms SET term = $10, term_folded = $11, definition = $12,
     category = $13, see_also = $14::jsonb, name_words = $15, aliases = $17::jsonb,
     avoid = $18::jsonb, alias_words = $19, avoid_words = $20,
     all_vec = ${ALL_VECTOR('$15', '$19', '$16', '$20')}
   WHERE seq = $1`,
  'DELETE FROM term_names WHERE seq = $1',
  NAMES_OF('$1', '$21', '$22', '$23'),
];
const UPDATE = recordingChange('updated', OVERWRITE);
const RESTORE_LIVE = recordingChange('restored', OVERWRITE);
const REMOVE = recordingChange('deleted', [
  'DELETE FROM terms WHERE seq = $1',
  'DELETE FROM term_names WHERE seq = $1',
  'UPDATE term_ids SET live = live - 1 WHERE id = $2',
]);

/** The term row's new values and names, as `$10..$23`. */
function newValues(term: Term, values: TermValues): unknown[] {
  return [...values.slice(1), ...nameColumns(term)];
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
  const next = storedTerm(edit(current));
  if (next.id !== id) throw new Error('a term keeps its id when it changes');
  await checkNames(client, next, row.seq);
  const values = termValues(next);
  await client.query(UPDATE, [...recordingParams(row, change, next), ...newValues(next, values)]);
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
                       name_words, aliases, avoid, alias_words, avoid_words, all_vec,
                       created_rev, created_at, created_by)
    OVERRIDING SYSTEM VALUE
    SELECT $1, $2, $3, $4, $5, $6, $7::jsonb, $14, $16::jsonb, $17::jsonb, $18, $19,
           ${ALL_VECTOR('$14', '$18', '$15', '$19')},
           coalesce(c.revision, $8), coalesce(c.at, $9), CASE WHEN c.revision IS NULL THEN $10 ELSE c.by END
    FROM (SELECT 1) one LEFT JOIN creation c ON true
  ), names AS (${NAMES_OF('$1', '$20', '$21', '$22')}
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
  const restored = storedTerm(entry.term);
  await checkNames(client, restored, row?.seq);
  const values = termValues(restored);
  await vocabulary.record(
    client,
    wordsOfValues([values]),
    row && { words: wordsOfTerm(toTerm(row)), seq: row.seq },
  );
  if (row) {
    await client.query(RESTORE_LIVE, [
      ...recordingParams(row, change, restored),
      ...newValues(restored, values),
    ]);
    return restored;
  }
  const [
    ,
    name,
    folded,
    definition,
    category,
    seeAlso,
    nameWords,
    definitionWords,
    aliases,
    avoid,
    aliasWords,
    avoidWords,
  ] = values;
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
    JSON.stringify(restored),
    nameWords,
    definitionWords,
    aliases,
    avoid,
    aliasWords,
    avoidWords,
    ...nameColumns(restored),
  ]);
  return restored;
}
