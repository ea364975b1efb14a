import { MAX_HISTORY_PAGE, MAX_ID, type Term, type TermInput, termOf } from '../glossary/term.ts';
import type { HistoryEntry } from '../http/wire.ts';
import type { Outcome } from './import-report.ts';
import type { ServiceClient } from './service-client.ts';
import { changedFields, eachAtOnce } from './sync-terms.ts';

/**
 * `glossary import --update`: a file term whose id the glossary does not hold may be one
 * someone deleted on the service since the file last matched it. Re-creating it would undo
 * that deletion without a word, so it is judged before its batch is sent: the id's history
 * (404 for an id that never existed, the common case, one cheap request) ending in `deleted`
 * makes it a conflict, whether the file's version is one the term had (the deleted state or
 * earlier) or the file changed it since (then `changes` names the fields the file differs in
 * from the term as deleted). `--force` sends it, and it is created (`forced`).
 */

export interface DeletedCandidate {
  index: number;
  id: number;
}

/** Whether the item's id is one to ask about: an integer the glossary may have held. */
export function askable(id: unknown): id is number {
  return Number.isInteger(id) && (id as number) >= 1 && (id as number) <= MAX_ID;
}

/**
 * The outcome of each candidate the service deleted: a `conflict` (withhold it from the
 * batch), or with `force` a note that it is re-created (send it, report it `forced`).
 * Candidates that never existed, or whose history does not end in a deletion, are absent.
 */
export async function judgeDeleted(
  client: ServiceClient,
  items: readonly unknown[],
  candidates: readonly DeletedCandidate[],
  force: boolean,
): Promise<Map<number, Outcome>> {
  const verdicts = new Map<number, Outcome>();
  await eachAtOnce(candidates, async ({ index, id }) => {
    const first = (await client.historyPage(id)) ?? []; // none: the id never existed
    const newest = first[0];
    if (newest?.action !== 'deleted') return;
    if (force) {
      verdicts.set(index, { action: 'created', id, index, forced: true });
      return;
    }
    const wanted = termOf(items[index] as TermInput);
    const match = await revisionEqualTo(client, id, wanted, first);
    const changes = match ? undefined : changedFields(newest.term, wanted);
    verdicts.set(index, { action: 'conflict', id, index, deleted: true, changes });
  });
  return verdicts;
}

/** The newest entry of the id's history whose term is `wanted`, from `first` page on. */
async function revisionEqualTo(
  client: ServiceClient,
  id: number,
  wanted: Term,
  first: HistoryEntry[],
): Promise<HistoryEntry | undefined> {
  let page: HistoryEntry[] | undefined = first;
  for (;;) {
    const match = page?.find((entry) => changedFields(entry.term, wanted).length === 0);
    if (match || !page || page.length < MAX_HISTORY_PAGE) return match;
    page = await client.historyPage(id, page.at(-1)?.revision);
  }
}
