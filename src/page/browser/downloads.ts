import { csv } from '../../glossary/exports/csv.ts';
import { json } from '../../glossary/exports/json.ts';
import { toMarkdown } from '../../glossary/exports/markdown.ts';
import { ApiError, everyTerm, getTerm, type Term } from './api.ts';
import { byId } from './dom.ts';
import type { ShownList } from './term-list.ts';

const count = new Intl.NumberFormat('en');
const TYPES = {
  json: 'application/json',
  csv: 'text/csv',
  md: 'text/markdown',
} as const;
/** Out-of-download see-also terms whose names the Markdown file gets (one request each). */
const MAX_NAMES = 100;

/**
 * Downloads of the list as it is now (every page of it, read page by page, never unpaged),
 * in the same formats the CLI exports: JSON (re-importable), CSV (formula cells neutralised
 * for spreadsheets), Markdown. A filtered list's file is named after its filter, and its
 * see-also links to terms outside it are called "not in this download".
 */
export function setUpDownloads(currentList: () => ShownList): void {
  const status = byId('download-status');
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-download]')) {
    button.addEventListener('click', async () => {
      const format = button.dataset.download as keyof typeof TYPES;
      const shown = currentList();
      button.disabled = true;
      status.textContent = 'Collecting the terms…';
      try {
        const parts: string[] = [];
        const all: Term[] = [];
        let first = true;
        if (format === 'json') parts.push(json.start());
        if (format === 'csv') parts.push(csv.start());
        collect: for await (const terms of everyTerm(shown.query, (done) => {
          status.textContent = `Collecting the terms… ${count.format(done)}`;
        })) {
          for (const term of terms) {
            // A letter's terms end before the next letter's, which `from` reads on into.
            if (shown.limit !== null && all.length >= shown.limit) break collect;
            all.push(term);
            if (format !== 'md')
              parts.push(format === 'json' ? json.term(term, first) : csv.term(term));
            first = false;
          }
        }
        const filtered = fileName(shown) !== 'glossary';
        const outside = filtered ? await outsideLinks(all) : new Map<number, string | null>();
        if (format === 'md') parts.push(toMarkdown(all, outside));
        if (format === 'json') parts.push(json.end(first));
        const link = document.createElement('a');
        link.href = URL.createObjectURL(new Blob(parts, { type: TYPES[format] }));
        link.download = `${fileName(shown)}.${format}`;
        link.click();
        setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
        status.textContent = ready(link.download, all.length, outside, format);
      } catch (error) {
        status.textContent =
          error instanceof ApiError ? error.message : 'The file could not be made. Try again.';
      } finally {
        button.disabled = false;
      }
    });
  }
}

/** `glossary`, then each filter: `glossary-category-devops-q-cache`, `glossary-letter-r`. */
export function fileName({ view, letter }: ShownList): string {
  const parts = ['glossary'];
  if (view.category) parts.push('category', slug(view.category));
  if (view.q.trim()) parts.push('q', slug(view.q));
  else if (letter)
    parts.push(letter.start && letter.end ? `letter-${letter.key}` : slug(letter.name));
  else if (view.from) parts.push('from', slug(view.from));
  return parts.filter(Boolean).join('-');
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
}

/**
 * The see-also ids of `terms` that are not among them but name a term of the glossary, with
 * the name of the first hundred (one request each); an id that names no term is left out.
 */
async function outsideLinks(terms: readonly Term[]): Promise<Map<number, string | null>> {
  const inside = new Set(terms.map((term) => term.id));
  const ids = [...new Set(terms.flatMap((term) => term.see_also))].filter((id) => !inside.has(id));
  const outside = new Map<number, string | null>();
  const named = ids.slice(0, MAX_NAMES);
  for (let start = 0; start < named.length; start += 6) {
    const found = await Promise.all(named.slice(start, start + 6).map((id) => getTerm(id)));
    for (const [index, result] of found.entries()) {
      if (result) outside.set(named[start + index] as number, result.term.term);
    }
  }
  for (const id of ids.slice(MAX_NAMES)) outside.set(id, null);
  return outside;
}

function ready(
  file: string,
  terms: number,
  outside: ReadonlyMap<number, string | null>,
  format: keyof typeof TYPES,
): string {
  const held = `${file} is ready: ${count.format(terms)} ${terms === 1 ? 'term' : 'terms'}.`;
  if (outside.size === 0) return held;
  const links = `${count.format(outside.size)} see-also ${outside.size === 1 ? 'term is' : 'terms are'} not in this download`;
  return format === 'md'
    ? `${held} ${links}: the file says so beside each link.`
    : `${held} ${links} (their IDs stay in see_also).`;
}
