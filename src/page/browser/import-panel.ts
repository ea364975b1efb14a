import { ApiError, type BulkItemResult, IMPORT_BATCH, importBatch } from './api.ts';
import { byId, h } from './dom.ts';
import { type FileItem, readTermsFile, UnreadableFile } from './import-file.ts';
import { itemWords } from './term-words.ts';

/** Rows shown in the results table; the summary always counts every item. */
const MAX_ROWS = 500;

/** What became of one row of the file. */
interface RowResult {
  row: string;
  added: boolean;
  detail: string;
}

type Write = (change: () => Promise<void>) => Promise<boolean>;

/**
 * Imports a JSON or CSV file through the bulk endpoint and shows what became of each row,
 * by its place in the file (JSON's item number, CSV's line, both from 1), in the form's words.
 */
export function setUpImport(write: Write, onImported: () => void): void {
  const form = byId<HTMLFormElement>('import-form');
  const input = byId<HTMLInputElement>('import-file');
  const status = byId('import-status');
  const output = byId('import-results');

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    output.replaceChildren();
    const file = input.files?.[0];
    if (!file) {
      status.textContent = 'Choose a JSON or CSV file first.';
      input.focus();
      return;
    }
    let rows: FileItem[];
    try {
      rows = readTermsFile(file.name, await file.text());
    } catch (error) {
      status.textContent =
        error instanceof UnreadableFile ? error.message : `${file.name} could not be read.`;
      return;
    }
    const results: RowResult[] = rows
      .filter((row) => row.problem !== undefined)
      .map((row) => ({ row: row.row, added: false, detail: row.problem ?? '' }));
    const sendable = rows.filter((row) => row.problem === undefined);
    let stopped = '';
    try {
      for (let start = 0; start < sendable.length; start += IMPORT_BATCH) {
        status.textContent = `Importing… ${start} of ${sendable.length}`;
        const batch = sendable.slice(start, start + IMPORT_BATCH);
        let answers: BulkItemResult[] = [];
        const sent = await write(async () => {
          answers = await importBatch(batch.map((row) => row.item));
        });
        if (!sent) {
          stopped = 'Import stopped: it needs a token, and none was given.';
          break;
        }
        for (const answer of answers) {
          const row = batch[answer.index]?.row ?? `Item ${start + answer.index + 1}`;
          results.push(
            answer.status === 'created'
              ? { row, added: true, detail: `Added as ID ${answer.id}.` }
              : { row, added: false, detail: itemWords(answer.detail ?? '') },
          );
        }
      }
    } catch (error) {
      stopped = `${error instanceof ApiError ? error.message : 'The import failed.'}`;
    }
    const added = results.filter((result) => result.added).length;
    const summary = `${file.name}: ${added} created, ${results.length - added} rejected.`;
    status.textContent = stopped
      ? `${stopped} ${added} ${added === 1 ? 'term was' : 'terms were'} added before.`
      : summary;
    if (results.length > 0) {
      // In the file's order: rows the page could not send sit where they are in the file.
      const order = new Map(rows.map((row, index) => [row.row, index]));
      results.sort((a, b) => (order.get(a.row) ?? 0) - (order.get(b.row) ?? 0));
      output.replaceChildren(resultTable(results));
    }
    if (added > 0) onImported();
  });
}

function resultTable(results: RowResult[]): HTMLElement {
  const rows = results
    .slice(0, MAX_ROWS)
    .map((result) =>
      h(
        'tr',
        { class: result.added ? 'created' : 'rejected' },
        h('th', { scope: 'row' }, result.row),
        h('td', {}, result.added ? 'Added' : 'Not added'),
        h('td', {}, result.detail),
      ),
    );
  return h(
    'div',
    { class: 'table-scroll' },
    h(
      'table',
      { class: 'results' },
      h('caption', {}, 'What became of each row of the file'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Row'),
          h('th', { scope: 'col' }, 'Result'),
          h('th', { scope: 'col' }, 'Detail'),
        ),
      ),
      h('tbody', {}, ...rows),
    ),
    results.length > MAX_ROWS
      ? h('p', {}, `… and ${results.length - MAX_ROWS} more rows, not listed.`)
      : null,
  );
}
