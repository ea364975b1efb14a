import { ApiError, type BulkItemResult, IMPORT_BATCH, importBatch } from './api.ts';
import { withToken } from './dialogs.ts';
import { byId, h } from './dom.ts';

/** Rows shown in the results table; the summary always counts every item. */
const MAX_ROWS = 500;

/** Imports a JSON file through the bulk endpoint and shows one result per item of the file. */
export function setUpImport(onImported: () => void): void {
  const form = byId<HTMLFormElement>('import-form');
  const input = byId<HTMLInputElement>('import-file');
  const status = byId('import-status');
  const output = byId('import-results');

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    output.replaceChildren();
    const file = input.files?.[0];
    if (!file) {
      status.textContent = 'Choose a JSON file first.';
      input.focus();
      return;
    }
    let items: unknown;
    try {
      items = JSON.parse(await file.text());
    } catch {
      status.textContent = `${file.name} is not valid JSON.`;
      return;
    }
    if (!Array.isArray(items) || items.length === 0) {
      status.textContent = `${file.name} must hold a non-empty JSON array of terms.`;
      return;
    }
    const results: BulkItemResult[] = [];
    try {
      for (let start = 0; start < items.length; start += IMPORT_BATCH) {
        status.textContent = `Importing… ${start} of ${items.length}`;
        let batch: BulkItemResult[] = [];
        const sent = await withToken(async () => {
          batch = await importBatch(items.slice(start, start + IMPORT_BATCH));
        });
        if (!sent) break;
        results.push(...batch.map((result) => ({ ...result, index: result.index + start })));
      }
    } catch (error) {
      status.textContent = `${error instanceof ApiError ? error.message : 'The import failed.'} ${results.length} items were processed before.`;
    }
    if (results.length > 0) {
      const created = results.filter((result) => result.status === 'created').length;
      if (results.length === items.length) {
        status.textContent = `${file.name}: ${created} created, ${results.length - created} rejected.`;
      }
      output.replaceChildren(resultTable(results));
      onImported();
    }
  });
}

function resultTable(results: BulkItemResult[]): HTMLElement {
  const rows = results
    .slice(0, MAX_ROWS)
    .map((result) =>
      h(
        'tr',
        { class: result.status === 'created' ? 'created' : 'rejected' },
        h('td', {}, String(result.index)),
        h('td', {}, result.status),
        h('td', {}, result.status === 'created' ? `ID ${result.id}` : (result.detail ?? '')),
      ),
    );
  return h(
    'div',
    { class: 'table-scroll' },
    h(
      'table',
      { class: 'results' },
      h('caption', {}, 'Result per item of the file'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Item'),
          h('th', { scope: 'col' }, 'Result'),
          h('th', { scope: 'col' }, 'Detail'),
        ),
      ),
      h('tbody', {}, ...rows),
    ),
    results.length > MAX_ROWS
      ? h('p', {}, `… and ${results.length - MAX_ROWS} more items, not listed.`)
      : null,
  );
}
