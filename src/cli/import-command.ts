import cliProgress from 'cli-progress';
import type { TermInput } from '../glossary/term.ts';
import type { BulkItemResult } from '../http/wire.ts';
import { CliError } from './cli-error.ts';
import { askable, type DeletedCandidate, judgeDeleted } from './deleted-terms.ts';
import { ImportReport, type Outcome } from './import-report.ts';
import { type FileFormat, readTermsFile } from './read-terms-file.ts';
import { BatchRefused, ServiceClient } from './service-client.ts';
import { type Existing, prune, readStored, syncExisting } from './sync-terms.ts';

/** What to do with a term whose id the glossary already has. */
export type ExistingTerms = 'reject' | 'skip' | 'update';

export interface ImportOptions {
  url: string;
  token?: string | undefined;
  format?: FileFormat;
  batchSize: number;
  existing: ExistingTerms;
  dryRun: boolean;
  /** With `update`: overwrite a term the service changed since the file last matched it. */
  force?: boolean;
  /** With `update`: delete the terms the file does not hold. */
  prune?: boolean;
  /** The outcomes as a JSON array on stdout. */
  json?: boolean;
}

/**
 * Sends the file's terms to `POST /terms/bulk` batch after batch, in file order (so the
 * glossary keeps the file's order), and reports what became of each: created, rejected (by
 * its line in a CSV file, its index in a JSON one), and for an id the glossary has already
 * rejected, skipped (`--skip-existing`) or synced (`--update`, see sync-terms.ts). `--dry-run`
 * asks the service to judge every batch without storing it and writes nothing. Returns the
 * exit status: 1 when any item was rejected or is a conflict.
 */
export async function importCommand(file: string, options: ImportOptions): Promise<number> {
  const source = readTermsFile(file, options.format);
  const { items } = source;
  if (options.prune && items.length === 0) {
    throw new CliError(`${file} holds no terms: --prune would delete every term; nothing done`);
  }
  const client = new ServiceClient(options.url, options.token);
  const bar = process.stderr.isTTY
    ? new cliProgress.SingleBar(
        { format: 'importing {bar} {value}/{total} terms', stream: process.stderr },
        cliProgress.Presets.shades_classic,
      )
    : null;
  // Lines on the same terminal as the bar: clear its line first; it is drawn again below.
  const beforeWrite =
    bar && process.stdout.isTTY ? () => process.stderr.write('\r\x1b[2K') : undefined;
  const report = new ImportReport({
    file,
    source,
    json: options.json ?? false,
    dryRun: options.dryRun,
    beforeWrite,
  });
  bar?.start(items.length, 0);

  const firstIndex = firstIndexById(items);
  /** Ids of terms deleted on the service that this run does not re-create. */
  const withheld = new Set<unknown>();
  let start = 0;
  // Past the last item sent: beyond `start` while the batch's existing terms are synced.
  let sentUpTo = 0;
  let size = options.batchSize;
  try {
    const stored =
      options.existing === 'update' ? await readStored(client) : new Map<number, string>();
    while (start < items.length) {
      const batch = items.slice(start, start + size);
      // Under --update, a term deleted on the service is judged before its id is sent.
      const deleted =
        options.existing === 'update'
          ? await judgeDeleted(
              client,
              items,
              candidatesOf(batch, start, stored, firstIndex),
              options.force ?? false,
            )
          : new Map<number, Outcome>();
      const { sent, held } = withhold(items, start, batch.length, deleted, withheld, (index) => {
        const id = idOf(items[index]);
        return `Duplicate ID ${id} in the file (${source.where(firstIndex.get(id) ?? index)}).`;
      });
      let results: BulkItemResult[];
      try {
        results =
          sent.length === 0
            ? []
            : await client.importBatch(
                sent.map((index) => items[index]),
                { dryRun: options.dryRun },
              );
      } catch (error) {
        // A service configured with a lower BATCH_LIMIT answers 413: retry with smaller batches.
        if (error instanceof BatchRefused && error.status === 413 && size > 1) {
          size = Math.ceil(size / 2);
          continue;
        }
        throw error;
      }
      for (const outcome of held) report.add(outcome); // after a 413, judged again above
      sentUpTo = start + batch.length;
      const existing: Existing[] = [];
      for (const result of results) {
        const index = sent[result.index] as number;
        const item = items[index];
        const id = idOf(item);
        const first = firstIndex.get(id);
        if (result.status === 'created')
          report.add({ action: 'created', id, index, forced: deleted.get(index)?.forced });
        else if (
          first !== undefined &&
          first < index &&
          (isRepeatedInBatch(result, id) || isAlreadyStored(result, item))
        ) {
          // A later occurrence of an id in the file is never a second version to sync; and
          // the service's "in batch" or "already exists" would not tell the reader why.
          const detail = `Duplicate ID ${id} in the file (${source.where(first)}).`;
          report.add({ action: 'rejected', id, index, detail });
        } else if (options.existing !== 'reject' && isAlreadyStored(result, item)) {
          existing.push({ index, item: item as TermInput });
        } else {
          report.add({ action: 'rejected', id, index, detail: result.detail ?? 'rejected' });
        }
      }
      if (options.existing === 'skip') {
        for (const { index, item } of existing)
          report.add({ action: 'skipped', id: item.id, index });
      } else {
        const sync = { dryRun: options.dryRun, force: options.force ?? false };
        await syncExisting(client, existing, stored, sync, report);
      }
      start += batch.length;
      report.flush();
      bar?.update(start);
    }
    if (options.prune) {
      await prune(client, stored, heldIds(items), options.dryRun, report);
    }
  } catch (error) {
    bar?.stop();
    // What was done is printed, and a JSON array closed, whatever stopped the run.
    report.close(items.length);
    if (!(error instanceof CliError) || start === 0) throw error;
    const done = report.summary();
    const part = sentUpTo > start ? ` and items ${start} to ${sentUpTo - 1} in part` : '';
    throw new CliError(
      start < items.length
        ? `${error.message}; items 0 to ${start - 1} of ${file} were processed${part} (${done})${sentUpTo < items.length ? ', the rest not sent' : ''}`
        : `${error.message}; every item of ${file} was processed (${done}), pruning stopped`,
    );
  }
  bar?.stop();
  return report.finish(items.length);
}

/**
 * Splits a batch into the indexes to send and the outcomes of those withheld: a term deleted
 * on the service (its id is added to `withheld`), and any later occurrence of such an id,
 * which sent would be created in its place (`duplicate` says why it is rejected).
 */
function withhold(
  items: readonly unknown[],
  start: number,
  length: number,
  deleted: ReadonlyMap<number, Outcome>,
  withheld: Set<unknown>,
  duplicate: (index: number) => string,
): { sent: number[]; held: Outcome[] } {
  const sent: number[] = [];
  const held: Outcome[] = [];
  for (let index = start; index < start + length; index++) {
    const verdict = deleted.get(index);
    if (verdict?.action === 'conflict') {
      withheld.add(verdict.id);
      held.push(verdict);
    } else if (withheld.has(idOf(items[index]))) {
      held.push({ action: 'rejected', id: idOf(items[index]), index, detail: duplicate(index) });
    } else sent.push(index);
  }
  return { sent, held };
}

/** The batch's items that would create a term: an id's first occurrence, not stored. */
function candidatesOf(
  batch: readonly unknown[],
  start: number,
  stored: ReadonlyMap<number, string>,
  firstIndex: ReadonlyMap<unknown, number>,
): DeletedCandidate[] {
  const candidates: DeletedCandidate[] = [];
  batch.forEach((item, offset) => {
    const id = idOf(item);
    const index = start + offset;
    if (askable(id) && !stored.has(id) && firstIndex.get(id) === index) {
      candidates.push({ index, id });
    }
  });
  return candidates;
}

/** The service's "already exists" for this very item: it passed validation, so it is a term. */
function isAlreadyStored(
  result: Extract<BulkItemResult, { status: 'error' }>,
  item: unknown,
): boolean {
  return result.detail === `Term with ID ${String(idOf(item))} already exists.`;
}

function isRepeatedInBatch(
  result: Extract<BulkItemResult, { status: 'error' }>,
  id: unknown,
): boolean {
  return result.detail === `Duplicate ID ${String(id)} in batch.`;
}

/** Where each id first occurs in the file. */
function firstIndexById(items: readonly unknown[]): Map<unknown, number> {
  const first = new Map<unknown, number>();
  items.forEach((item, index) => {
    const id = idOf(item);
    if (id !== undefined && !first.has(id)) first.set(id, index);
  });
  return first;
}

/**
 * The ids the file holds, for `--prune`: an item the service rejected still holds its id, and
 * an id written as text (`"103"`, a CSV `103.0`) still names that term, so it is kept.
 */
function heldIds(items: readonly unknown[]): Set<unknown> {
  const held = new Set<unknown>();
  for (const item of items) {
    const id = idOf(item);
    held.add(id);
    if (typeof id === 'string' && id.trim() !== '') held.add(Number(id));
  }
  return held;
}

function idOf(item: unknown): unknown {
  return typeof item === 'object' && item !== null && 'id' in item ? item.id : undefined;
}
