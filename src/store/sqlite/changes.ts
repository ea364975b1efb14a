import type Database from 'better-sqlite3';
import type { ChangeFeed } from '../../glossary/changes.ts';
import { toEntry as entryOf, type EntryRow as SharedEntryRow } from '../history-entries.ts';
import { guard } from './errors.ts';
import { FIELDS } from './history.ts';
import { type TermRow, toTerm } from './term-rows.ts';

/**
 * The change feed's reads (changes.ts). The feed is every id's history in one line: the rows
 * of `term_history` and the creations kept only on their live `terms` row (never changed, or
 * imported), the same union history.ts reads for one id.
 *
 * Rule 2 (exactly once) needs nothing more here: writers hold the file's one write lock
 * (`BEGIN IMMEDIATE`) from drawing a revision to committing it, in every process, so
 * revisions commit in order and a reader never sees one while a lower one may still appear.
 * Reads run on the store's own connection, like `history`: one statement, one snapshot, and a
 * page is at most `MAX_PAGE` entries, so a follower never holds the event loop for long.
 */

type EntryRow = SharedEntryRow<TermRow>;

/** The most entries one call answers, whatever `limit` asks (GET /changes allows 1,000). */
export const MAX_PAGE = 1000;

// Both sides are cut to the page first, each through its index (`term_history`'s primary key,
// `terms_by_created_rev`). A creation on a `terms` row whose revision is also in `term_history`
// was copied there by its term's first change and is read from there. The live side reads no
// further than the last revision of the page of recorded entries when that page is full: the
// rows it passes over (their creation recorded) then each have their entry within that page,
// so a page reads at most twice `limit` rows, however many terms were changed since.
const SINCE = `
  WITH recorded AS (
    SELECT revision, seq, action, at, by, term AS state,
           ${FIELDS.map((f) => `NULL AS ${f}`).join(', ')}
    FROM term_history WHERE revision > @since ORDER BY revision LIMIT @limit),
  upto AS (
    SELECT CASE WHEN count(*) < @limit THEN ${Number.MAX_SAFE_INTEGER} ELSE max(revision) END
      AS revision
    FROM recorded)
  SELECT * FROM recorded
  UNION ALL
  SELECT * FROM (
    SELECT t.created_rev, t.seq, 'created', t.created_at, t.created_by, NULL,
           ${FIELDS.map((f) => `t.${f}`).join(', ')}
    FROM terms t
    WHERE t.created_rev > @since AND t.created_rev <= (SELECT revision FROM upto)
      AND NOT EXISTS (SELECT 1 FROM term_history h WHERE h.revision = t.created_rev)
    ORDER BY t.created_rev LIMIT @limit)
  ORDER BY revision LIMIT @limit`;

export function changeReads(
  db: Database.Database,
): Pick<ChangeFeed, 'changesSince' | 'latestRevision'> {
  const since = db.prepare<{ since: number; limit: number }, EntryRow>(SINCE);
  const revision = db.prepare<[], number>('SELECT revision FROM glossary_state').pluck();
  return {
    async changesSince(after, limit) {
      const size = Math.min(Math.max(Math.floor(limit), 0), MAX_PAGE);
      if (size === 0) return [];
      return guard(() => since.all({ since: after, limit: size })).map((row) =>
        entryOf(row, toTerm),
      );
    },
    // Revisions are drawn and committed under the write lock: the committed one is the highest.
    async latestRevision() {
      return guard(() => revision.get() ?? 0);
    },
  };
}
