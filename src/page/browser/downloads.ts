import { csv } from '../../glossary/exports/csv.ts';
import { json } from '../../glossary/exports/json.ts';
import { toMarkdown } from '../../glossary/exports/markdown.ts';
import { ApiError, everyTerm, type Term, type View } from './api.ts';
import { byId } from './dom.ts';

const count = new Intl.NumberFormat('en');
const TYPES = {
  json: 'application/json',
  csv: 'text/csv',
  md: 'text/markdown',
} as const;

/**
 * Downloads of the list as it is now (every page of it, read page by page, never unpaged),
 * in the same formats the CLI exports: JSON (re-importable), CSV (formula cells neutralised
 * for spreadsheets), Markdown.
 */
export function setUpDownloads(currentView: () => View): void {
  const status = byId('download-status');
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-download]')) {
    button.addEventListener('click', async () => {
      const format = button.dataset.download as keyof typeof TYPES;
      const view = currentView();
      button.disabled = true;
      status.textContent = 'Collecting the terms…';
      try {
        const parts: string[] = [];
        const all: Term[] = [];
        let first = true;
        if (format === 'json') parts.push(json.start());
        if (format === 'csv') parts.push(csv.start());
        for await (const terms of everyTerm(view, (done) => {
          status.textContent = `Collecting the terms… ${count.format(done)}`;
        })) {
          for (const term of terms) {
            if (format === 'md') all.push(term);
            else parts.push(format === 'json' ? json.term(term, first) : csv.term(term));
            first = false;
          }
        }
        if (format === 'md') parts.push(toMarkdown(all));
        if (format === 'json') parts.push(json.end(first));
        const link = document.createElement('a');
        link.href = URL.createObjectURL(new Blob(parts, { type: TYPES[format] }));
        link.download = `glossary.${format}`;
        link.click();
        setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
        status.textContent = 'The file is ready.';
      } catch (error) {
        status.textContent =
          error instanceof ApiError ? error.message : 'The file could not be made. Try again.';
      } finally {
        button.disabled = false;
      }
    });
  }
}
