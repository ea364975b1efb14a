import { createHash } from 'node:crypto';
import { MAX_HISTORY_PAGE, type Term, type TermInput, termOf } from '../glossary/term.ts';
import type { HistoryEntry } from '../http/wire.ts';
import type { ImportReport, Outcome } from './import-report.ts';
import type { ServiceClient } from './service-client.ts';

/**
 * `glossary import --update [--force] [--prune]`: the terms of the file that the glossary has
 * already, compared, checked for conflicts and replaced; and the terms the file no longer
 * holds, deleted. Requests are spent only where a term differs: the stored terms are read
 * once, as one streamed list, and kept as a digest each, so an unchanged term costs no request
 * and a history is read only for a term that differs.
 */

/** Requests at once, at most. */
const CONCURRENCY = 8;

/** The fields of a term, in their order, as `updated` and `conflict` name them. */
const FIELDS = ['term', 'definition', 'category', 'see_also', 'aliases', 'avoid'] as const;

export interface Existing {
  index: number;
  item: TermInput;
}

export interface SyncOptions {
  dryRun: boolean;
  force: boolean;
}

/** A digest of every stored term by id, read from GET /terms as it arrives (the first of an id). */
export async function readStored(client: ServiceClient): Promise<Map<number, string>> {
  const stored = new Map<number, string>();
  for await (const terms of client.streamTerms()) {
    for (const term of terms) if (!stored.has(term.id)) stored.set(term.id, digestOf(term));
  }
  return stored;
}

/**
 * Each existing term: unchanged when it equals the file's; a conflict when the file's equals
 * an earlier revision of it (the service changed it since the file last matched it), not
 * overwritten unless `force`; otherwise replaced (PUT with If-Match of the term as read, so a
 * change made meanwhile is reported, not overwritten). A dry run writes nothing.
 */
export async function syncExisting(
  client: ServiceClient,
  existing: readonly Existing[],
  stored: ReadonlyMap<number, string>,
  options: SyncOptions,
  report: ImportReport,
): Promise<void> {
  await eachAtOnce(existing, async ({ index, item }) => {
    const wanted = termOf(item);
    const id = wanted.id;
    if (stored.get(id) === digestOf(wanted)) {
      report.add({ action: 'unchanged', id, index });
      return;
    }
    const current = await client.getTerm(id);
    if (!current) {
      // Deleted since the batch was judged: the next run creates it.
      report.add({ action: 'rejected', id, index, detail: 'deleted while importing; run again' });
      return;
    }
    const changes = changedFields(current.term, wanted);
    if (changes.length === 0) {
      report.add({ action: 'unchanged', id, index });
      return;
    }
    const base = await earlierRevision(client, id, wanted);
    if (base && !options.force) {
      report.add({
        action: 'conflict',
        id,
        index,
        changes: changedFields(base.term, current.term),
      });
      return;
    }
    const forced = base ? true : undefined;
    if (options.dryRun) {
      report.add({ action: 'updated', id, index, changes, forced });
      return;
    }
    const outcome = await client.replaceTerm(wanted, current.etag);
    if (outcome !== 'changed' && 'warnings' in outcome) {
      const { warnings } = outcome;
      report.add({ action: 'updated', id, index, changes, forced, warnings });
    } else
      report.add({
        action: 'rejected',
        id,
        index,
        detail:
          outcome === 'changed'
            ? 'changed by someone else while importing; run again'
            : outcome.refused,
      });
  });
}

/**
 * Deletes each stored term whose id the file does not hold, with If-Match of the term as it
 * was read: one that changed since is reported and kept. A dry run only lists them.
 */
export async function prune(
  client: ServiceClient,
  stored: ReadonlyMap<number, string>,
  inFile: ReadonlySet<unknown>,
  dryRun: boolean,
  report: ImportReport,
): Promise<void> {
  const gone = [...stored].filter(([id]) => !inFile.has(id));
  // Deleted at once, reported in the glossary's order.
  const outcomes: (Outcome | undefined)[] = [];
  // Reported even when a request fails midway: the deletions made before it happened.
  try {
    await deleteEach(client, gone, dryRun, outcomes);
  } finally {
    for (const outcome of outcomes) if (outcome) report.add(outcome);
  }
}

async function deleteEach(
  client: ServiceClient,
  gone: readonly [number, string][],
  dryRun: boolean,
  outcomes: (Outcome | undefined)[],
): Promise<void> {
  await eachAtOnce(gone, async ([id, digest], position) => {
    if (dryRun) {
      outcomes[position] = { action: 'deleted', id };
      return;
    }
    const current = await client.getTerm(id);
    if (!current) return; // deleted meanwhile: nothing left to do
    const outcome =
      digestOf(current.term) === digest ? await client.deleteTerm(id, current.etag) : 'changed';
    if (typeof outcome === 'object') {
      outcomes[position] = { action: 'deleted', id, warnings: outcome.warnings };
    } else if (outcome === 'changed')
      outcomes[position] = {
        action: 'rejected',
        id,
        detail: 'not deleted: it changed on the service while syncing; run again',
      };
  });
}

/**
 * The newest entry of the id's history whose term is the file's, read a page at a time from
 * the newest: only a term that differs from the file's gets here, so the current state is
 * not it, and any entry that is, is an earlier revision.
 */
async function earlierRevision(
  client: ServiceClient,
  id: number,
  wanted: Term,
): Promise<HistoryEntry | undefined> {
  let before: number | undefined;
  for (;;) {
    const page = await client.historyPage(id, before);
    const match = page?.find((entry) => changedFields(entry.term, wanted).length === 0);
    if (match || !page || page.length < MAX_HISTORY_PAGE) return match;
    before = page.at(-1)?.revision;
  }
}

/** The fields in which two terms differ; `aliases`, `avoid` and `see_also` in order. */
export function changedFields(a: Term, b: Term): string[] {
  return FIELDS.filter(
    (field) => JSON.stringify(a[field] ?? []) !== JSON.stringify(b[field] ?? []),
  );
}

function digestOf(term: Term): string {
  const fields = FIELDS.map((field) => term[field] ?? []);
  return createHash('sha1').update(JSON.stringify(fields)).digest('base64');
}

/**
 * Runs `work` on every item, CONCURRENCY at a time. Once one fails no item is started, and the
 * failure is thrown only when the writes under way have ended and been reported: otherwise they
 * would go on after the run stopped and its report was closed, changing terms unreported.
 */
export async function eachAtOnce<T>(
  items: readonly T[],
  work: (item: T, position: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const position = next++;
      try {
        await work(items[position] as T, position);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  const ended = await Promise.allSettled(Array.from({ length: CONCURRENCY }, worker));
  for (const end of ended) if (end.status === 'rejected') throw end.reason;
}
