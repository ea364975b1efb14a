import type Database from 'better-sqlite3';
import { nameFold } from '../../glossary/other-names.ts';
import type { SomeTerms, TermStore } from '../../glossary/term-store.ts';
import { guard } from './errors.ts';

/**
 * The reads behind the warnings of writes (glossary/write-warnings.ts): a few index look-ups
 * each, read in one read transaction on the store's connection after the write committed.
 */
export function linkReads(db: Database.Database): Pick<TermStore, 'writeNotes' | 'danglingLinks'> {
  const missing = db
    .prepare<[string], number>(
      `SELECT j.value FROM json_each(?) j
       WHERE NOT EXISTS (SELECT 1 FROM terms t WHERE t.id = j.value) ORDER BY j.key`,
    )
    .pluck();
  // Through `term_names_by_fold`; a term counts once, at its first name with that fold.
  const sameName = db.prepare<{ fold: string; id: number; atMost: number }, Found>(
    `SELECT t.id, count(*) OVER () AS total FROM term_names n JOIN terms t ON t.seq = n.seq
     WHERE n.fold = @fold AND n.kind <> 'avoid' AND t.id <> @id
     GROUP BY t.seq ORDER BY t.seq LIMIT @atMost`,
  );
  // Through `term_links`' key (target, seq): the linking terms in creation order.
  const linking = db.prepare<{ target: number; atMost: number }, Found>(
    `SELECT t.id, count(*) OVER () AS total FROM term_links l JOIN terms t ON t.seq = l.seq
     WHERE l.target = @target AND NOT EXISTS (SELECT 1 FROM terms WHERE id = @target)
     ORDER BY l.seq LIMIT @atMost`,
  );
  const notes = db.transaction((id: number, name: string, seeAlso: number[], atMost: number) => ({
    missing: seeAlso.length === 0 ? [] : missing.all(JSON.stringify([...new Set(seeAlso)])),
    sameName: someTerms(sameName.all({ fold: nameFold(name), id, atMost })),
  }));
  return {
    async writeNotes(term, atMost) {
      return guard(() => notes(term.id, term.term, term.see_also, atMost));
    },
    async danglingLinks(id, atMost) {
      return guard(() => someTerms(linking.all({ target: id, atMost })));
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
