import DataLoader from 'dataloader';
import type pg from 'pg';
import { nameFold } from '../../glossary/other-names.ts';
import type { Term } from '../../glossary/term.ts';
import type { SomeTerms, TermStore, WriteNotes } from '../../glossary/term-store.ts';
import { encodeNul } from './nul-text.ts';
import { query } from './pool.ts';

/**
 * The reads behind the warnings of writes (glossary/write-warnings.ts): a few index look-ups
 * each, on a pooled connection after the write committed.
 */

/**
 * The write notes of the writes answered in one turn (a batch of creates is answered at once),
 * in one statement: the names through `term_names_by_fold` first (OFFSET 0 keeps them a
 * subquery of their own: the statement is prepared, and a generic plan otherwise walked every
 * name in `seq` order for the LIMIT, filtering by fold, a scan of the whole glossary), the ids
 * through `terms_by_id`, a term once. `$4`, the largest `atMost` asked; each caller keeps its own.
 */
const WRITE_NOTES = `
  SELECT a.k,
    (SELECT coalesce(json_agg(u.id::bigint ORDER BY u.n), '[]')
     FROM jsonb_array_elements_text(a.see) WITH ORDINALITY AS u (id, n)
     WHERE NOT EXISTS (SELECT FROM terms t WHERE t.id = u.id::bigint)) AS missing,
    (SELECT coalesce(json_agg(f ORDER BY f.seq), '[]') FROM (
       SELECT t.seq, t.id, count(*) OVER () AS total
       FROM (SELECT DISTINCT n.seq FROM term_names n
             WHERE n.fold = a.fold AND n.kind <> 'avoid' OFFSET 0) n
       JOIN terms t ON t.seq = n.seq
       WHERE t.id <> a.id
       ORDER BY t.seq LIMIT $4) f) AS same
  FROM unnest($1::jsonb[], $2::text[], $3::bigint[]) WITH ORDINALITY AS a (see, fold, id, k)`;

interface Asked {
  term: Pick<Term, 'id' | 'term' | 'see_also'>;
  atMost: number;
}

export function linkReads(pool: pg.Pool): Pick<TermStore, 'writeNotes' | 'danglingLinks'> {
  // Gathered per turn, as the reads by id are (gathered-reads.ts): never cached, so a note
  // asked after a write was acknowledged is read after it.
  const notes = new DataLoader<Asked, WriteNotes>(
    async (asked) => {
      const rows = await query<{ k: number; missing: number[]; same: Found[] }>(
        pool,
        WRITE_NOTES,
        [
          asked.map((a) => JSON.stringify([...new Set(a.term.see_also)])),
          asked.map((a) => encodeNul(nameFold(a.term.term))),
          asked.map((a) => a.term.id),
          Math.max(...asked.map((a) => a.atMost)),
        ],
        'write-notes',
      );
      const byAsked = new Map(rows.map((row) => [row.k, row]));
      return asked.map((a, i) => {
        const row = byAsked.get(i + 1);
        const same = someTerms(row?.same ?? []);
        return {
          missing: row?.missing ?? [],
          sameName: { ids: same.ids.slice(0, a.atMost), total: same.total },
        };
      });
    },
    { cache: false, maxBatchSize: 128, batchScheduleFn: (dispatch) => setImmediate(dispatch) },
  );
  return {
    writeNotes: (term, atMost) => notes.load({ term, atMost }),
    async danglingLinks(id, atMost) {
      // Through the GIN index of `see_also`.
      const rows = await query<Found>(
        pool,
        `SELECT id, (count(*) OVER ())::int AS total FROM terms
         WHERE see_also @> $1::jsonb AND NOT EXISTS (SELECT FROM terms WHERE id = $2)
         ORDER BY seq LIMIT $3`,
        [JSON.stringify([id]), id, atMost],
        'dangling-links',
      );
      return someTerms(rows);
    },
  };
}

interface Found {
  id: number;
  total: number;
}

function someTerms(rows: readonly Found[]): SomeTerms {
  return { ids: rows.map((row) => row.id), total: rows[0]?.total ?? 0 };
}
