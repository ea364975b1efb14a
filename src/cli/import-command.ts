import cliProgress from 'cli-progress';
import { CliError } from './cli-error.ts';
import { type FileFormat, readTermsFile } from './read-terms-file.ts';
import { BatchRefused, ServiceClient } from './service-client.ts';

export interface ImportOptions {
  url: string;
  format?: FileFormat;
  batchSize: number;
}

interface Rejection {
  index: number;
  id: unknown;
  detail: string;
}

/**
 * Sends the file's terms to `POST /terms/bulk` batch after batch, in file order (so the
 * glossary keeps the file's order), and reports every rejected item by its index in the file.
 * Returns the exit status: 1 when any item was rejected.
 */
export async function importCommand(file: string, options: ImportOptions): Promise<number> {
  const items = readTermsFile(file, options.format);
  const client = new ServiceClient(options.url);
  const bar = process.stderr.isTTY
    ? new cliProgress.SingleBar(
        { format: 'importing {bar} {value}/{total} terms', stream: process.stderr },
        cliProgress.Presets.shades_classic,
      )
    : null;
  bar?.start(items.length, 0);

  let created = 0;
  const rejected: Rejection[] = [];
  let start = 0;
  let size = options.batchSize;
  try {
    while (start < items.length) {
      const batch = items.slice(start, start + size);
      let results: Awaited<ReturnType<ServiceClient['importBatch']>>;
      try {
        results = await client.importBatch(batch);
      } catch (error) {
        // A service configured with a lower BATCH_LIMIT answers 413: retry with smaller batches.
        if (error instanceof BatchRefused && error.status === 413 && size > 1) {
          size = Math.ceil(size / 2);
          continue;
        }
        throw error;
      }
      for (const result of results) {
        if (result.status === 'created') created += 1;
        else {
          const index = start + result.index;
          rejected.push({ index, id: idOf(items[index]), detail: result.detail ?? 'rejected' });
        }
      }
      start += batch.length;
      bar?.update(start);
    }
  } catch (error) {
    bar?.stop();
    if (!(error instanceof CliError) || start === 0) throw error;
    throw new CliError(
      `${error.message}; items 0 to ${start - 1} of ${file} were processed (${created} created), the rest not sent`,
    );
  }
  bar?.stop();

  const out = process.stdout;
  out.write(`${file}: ${created} created, ${rejected.length} rejected (${items.length} terms)\n`);
  for (const { index, id, detail } of rejected) {
    const which = id === undefined ? '' : ` (id ${JSON.stringify(id)})`;
    out.write(`  item ${index}${which}: ${detail}\n`);
  }
  return rejected.length > 0 ? 1 : 0;
}

function idOf(item: unknown): unknown {
  return typeof item === 'object' && item !== null && 'id' in item ? item.id : undefined;
}
