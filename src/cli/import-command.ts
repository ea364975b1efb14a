import cliProgress from 'cli-progress';
import { type Term, type TermInput, termOf } from '../glossary/term.ts';
import type { BulkItemResult } from '../http/wire.ts';
import { CliError } from './cli-error.ts';
import { type FileFormat, readTermsFile } from './read-terms-file.ts';
import { BatchRefused, ServiceClient } from './service-client.ts';

/** What to do with a term whose id the glossary already has. */
export type ExistingTerms = 'reject' | 'skip' | 'update';

export interface ImportOptions {
  url: string;
  token?: string | undefined;
  format?: FileFormat;
  batchSize: number;
  existing: ExistingTerms;
  dryRun: boolean;
}

interface Rejection {
  index: number;
  id: unknown;
  detail: string;
}

interface Tally {
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
  rejected: Rejection[];
}

/** Existing terms compared and replaced at once, at most. */
const UPDATE_CONCURRENCY = 8;

/**
 * Sends the file's terms to `POST /terms/bulk` batch after batch, in file order (so the
 * glossary keeps the file's order), and reports every rejected item by its index in the file.
 * A term whose id exists already is rejected, skipped (`--skip-existing`) or, when it differs,
 * replaced (`--update`, a PUT guarded by If-Match), so a file kept in git can be synced again
 * and again. `--dry-run` asks the service to judge every batch without storing it and replaces
 * nothing. Returns the exit status: 1 when any item was rejected.
 */
export async function importCommand(file: string, options: ImportOptions): Promise<number> {
  const items = readTermsFile(file, options.format);
  const client = new ServiceClient(options.url, options.token);
  const bar = process.stderr.isTTY
    ? new cliProgress.SingleBar(
        { format: 'importing {bar} {value}/{total} terms', stream: process.stderr },
        cliProgress.Presets.shades_classic,
      )
    : null;
  bar?.start(items.length, 0);

  const tally: Tally = { created: 0, updated: 0, unchanged: 0, skipped: 0, rejected: [] };
  const firstIndex = firstIndexById(items);
  let start = 0;
  let size = options.batchSize;
  try {
    while (start < items.length) {
      const batch = items.slice(start, start + size);
      let results: BulkItemResult[];
      try {
        results = await client.importBatch(batch, { dryRun: options.dryRun });
      } catch (error) {
        // A service configured with a lower BATCH_LIMIT answers 413: retry with smaller batches.
        if (error instanceof BatchRefused && error.status === 413 && size > 1) {
          size = Math.ceil(size / 2);
          continue;
        }
        throw error;
      }
      const existing: { index: number; item: TermInput }[] = [];
      for (const result of results) {
        const index = start + result.index;
        const item = items[index];
        const first = firstIndex.get(idOf(item));
        if (result.status === 'created') tally.created += 1;
        else if (options.existing !== 'reject' && isAlreadyStored(result, item)) {
          // A later occurrence of an id in the file is never a second version to sync.
          if (first !== undefined && first < index) {
            const id = idOf(item);
            tally.rejected.push({
              index,
              id,
              detail: `Duplicate ID ${id} in the file (item ${first}).`,
            });
          } else existing.push({ index, item: item as TermInput });
        } else {
          tally.rejected.push({ index, id: idOf(item), detail: result.detail ?? 'rejected' });
        }
      }
      if (options.existing === 'skip') tally.skipped += existing.length;
      else await updateAll(client, existing, options.dryRun, tally);
      start += batch.length;
      bar?.update(start);
    }
  } catch (error) {
    bar?.stop();
    if (!(error instanceof CliError) || start === 0) throw error;
    throw new CliError(
      `${error.message}; items 0 to ${start - 1} of ${file} were processed (${summary(tally)}), the rest not sent`,
    );
  }
  bar?.stop();

  const out = process.stdout;
  const would = options.dryRun ? 'dry run, nothing changed: ' : '';
  out.write(`${file}: ${would}${summary(tally)} (${items.length} terms)\n`);
  for (const { index, id, detail } of tally.rejected) {
    const which = id === undefined ? '' : ` (id ${JSON.stringify(id)})`;
    out.write(`  item ${index}${which}: ${detail}\n`);
  }
  return tally.rejected.length > 0 ? 1 : 0;
}

function summary(tally: Tally): string {
  const parts = [`${tally.created} created`];
  if (tally.updated > 0) parts.push(`${tally.updated} updated`);
  if (tally.unchanged > 0) parts.push(`${tally.unchanged} unchanged`);
  if (tally.skipped > 0) parts.push(`${tally.skipped} skipped (already there)`);
  parts.push(`${tally.rejected.length} rejected`);
  return parts.join(', ');
}

/** The service's "already exists" for this very item: it passed validation, so it is a term. */
function isAlreadyStored(
  result: Extract<BulkItemResult, { status: 'error' }>,
  item: unknown,
): boolean {
  return result.detail === `Term with ID ${String(idOf(item))} already exists.`;
}

/** Replaces each existing term that differs from the file's, a few at a time. */
async function updateAll(
  client: ServiceClient,
  existing: { index: number; item: TermInput }[],
  dryRun: boolean,
  tally: Tally,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < existing.length) {
      const { index, item } = existing[next++] as { index: number; item: TermInput };
      const wanted = termOf(item);
      const current = await client.getTerm(wanted.id);
      if (current && same(current.term, wanted)) {
        tally.unchanged += 1;
      } else if (dryRun) {
        tally.updated += 1;
      } else if (!current) {
        // Deleted since the batch was judged: the next run creates it.
        tally.rejected.push({ index, id: wanted.id, detail: 'deleted while importing; run again' });
      } else {
        const outcome = await client.replaceTerm(wanted, current.etag);
        if (outcome === 'replaced') tally.updated += 1;
        else
          tally.rejected.push({
            index,
            id: wanted.id,
            detail:
              outcome === 'changed'
                ? 'changed by someone else while importing; run again'
                : outcome.refused,
          });
      }
    }
  };
  await Promise.all(Array.from({ length: UPDATE_CONCURRENCY }, worker));
}

/** Whether the stored term is the file's: every field, its other names included. */
function same(a: Term, b: Term): boolean {
  return (
    a.term === b.term &&
    a.definition === b.definition &&
    a.category === b.category &&
    sameList(a.see_also, b.see_also) &&
    sameList(a.aliases ?? [], b.aliases ?? []) &&
    sameList(a.avoid ?? [], b.avoid ?? [])
  );
}

function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
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

function idOf(item: unknown): unknown {
  return typeof item === 'object' && item !== null && 'id' in item ? item.id : undefined;
}
