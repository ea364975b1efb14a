import type pg from 'pg';
import { foldCase } from '../../glossary/fold-case.ts';
import { nameFold } from '../../glossary/other-names.ts';
import { nameKey } from '../../glossary/words.ts';
import { decodeNul, encodeNul } from './nul-text.ts';

/**
 * The rows migrations rewrite with the service's own code (fold-case.ts, other-names.ts,
 * words.ts), which SQL cannot do: read in `seq` order, a batch at a time, so a glossary of any
 * size is never held in memory at once.
 */

const BATCH = 5000;

/** Calls `work` with each batch of the terms `where` selects (their `seq` and `columns`). */
export async function inBatches<R extends { seq: number }>(
  client: pg.ClientBase,
  columns: string,
  where: string,
  work: (rows: R[]) => Promise<void>,
): Promise<void> {
  let after = 0;
  for (;;) {
    const { rows } = await client.query<R>(
      `SELECT seq, ${columns} FROM terms WHERE seq > $1 ${where} ORDER BY seq LIMIT ${BATCH}`,
      [after],
    );
    if (rows.length === 0) return;
    await work(rows);
    after = rows.at(-1)?.seq ?? after;
  }
}

/**
 * Folds again, in composed form (migration 7), the names with a character beyond ASCII (more
 * bytes than characters: only those can fold differently); answers how many changed.
 */
export async function refoldNames(client: pg.ClientBase): Promise<number> {
  let refolded = 0;
  await inBatches<{ seq: number; term: string; term_folded: string }>(
    client,
    'term, term_folded',
    'AND octet_length(term) <> char_length(term)',
    async (rows) => {
      const changed = rows.flatMap((row) => {
        const folded = encodeNul(foldCase(decodeNul(row.term)));
        return folded === row.term_folded ? [] : [{ seq: row.seq, folded }];
      });
      await client.query(
        `UPDATE terms t SET term_folded = u.term_folded
         FROM unnest($1::bigint[], $2::text[]) AS u (seq, term_folded) WHERE t.seq = u.seq`,
        [changed.map((row) => row.seq), changed.map((row) => row.folded)],
      );
      refolded += changed.length;
    },
  );
  return refolded;
}

/** Gives every term its name's row of `term_names` (migration 8). */
export async function fillTermNames(client: pg.ClientBase): Promise<void> {
  await inBatches<{ seq: number; term: string }>(client, 'term', '', async (rows) => {
    const names = rows.map((row) => decodeNul(row.term));
    await client.query(
      `INSERT INTO term_names (seq, kind, fold, key)
       SELECT seq, 'term', fold, key FROM unnest($1::bigint[], $2::text[], $3::text[])
         AS u (seq, fold, key)`,
      [
        rows.map((row) => row.seq),
        names.map((name) => encodeNul(nameFold(name))),
        names.map((name) => nameKey(name)),
      ],
    );
  });
}
