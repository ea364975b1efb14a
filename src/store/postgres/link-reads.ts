import type pg from 'pg';
import { nameFold } from '../../glossary/other-names.ts';
import type { SomeTerms, TermStore } from '../../glossary/term-store.ts';
import { encodeNul } from './nul-text.ts';
import { query } from './pool.ts';

/**
 * The reads behind the warnings of writes (glossary/write-warnings.ts): one statement each,
 * a few index look-ups, on a pooled connection after the write committed.
 */
export function linkReads(pool: pg.Pool): Pick<TermStore, 'writeNotes' | 'danglingLinks'> {
  return {
    async writeNotes(term, atMost) {
      // Ids through `terms_by_id`; names through `term_names_by_fold`, a term once. The names
      // are found first (OFFSET 0 keeps them a subquery of their own): the statement is
      // prepared, and its generic plan otherwise walked every name in `seq` order for the
      // LIMIT, filtering by fold, a scan of the whole glossary on every POST and PUT.
      const rows = await query<{ missing: number[]; same: Found[] }>(
        pool,
        `SELECT
           (SELECT coalesce(json_agg(u.id ORDER BY u.n), '[]') FROM unnest($1::bigint[])
              WITH ORDINALITY AS u (id, n)
            WHERE NOT EXISTS (SELECT FROM terms t WHERE t.id = u.id)) AS missing,
           (SELECT coalesce(json_agg(f ORDER BY f.seq), '[]') FROM (
              SELECT t.seq, t.id, count(*) OVER () AS total
              FROM (SELECT DISTINCT n.seq FROM term_names n
                    WHERE n.fold = $2 AND n.kind <> 'avoid' OFFSET 0) n
              JOIN terms t ON t.seq = n.seq
              WHERE t.id <> $3
              ORDER BY t.seq LIMIT $4) f) AS same`,
        [[...new Set(term.see_also)], encodeNul(nameFold(term.term)), term.id, atMost],
        'write-notes',
      );
      const row = rows[0];
      return { missing: row?.missing ?? [], sameName: someTerms(row?.same ?? []) };
    },
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
