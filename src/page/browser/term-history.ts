import {
  ApiError,
  type HistoryEntry,
  type HistoryPage,
  history,
  restore,
  StaleTerm,
} from './api.ts';
import { h, refocusIfLost } from './dom.ts';
import { type NameOf, nameCache, termChanges } from './term-changes.ts';

/**
 * A term's history: each version, who made it and when, and what it changed against the one
 * before; each older version can be brought back.
 */

export interface HistoryHandlers {
  write(change: () => Promise<void>): Promise<boolean>;
  /** The term was restored: show it, with what the glossary noted (a link to no term). */
  changed(id: number, notes: string[]): void;
  /** A restore was refused because the term changed meanwhile: show it as it is now, and why. */
  stale(id: number, notice: string): void;
}

const when = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });
const ACTIONS: Record<HistoryEntry['action'], string> = {
  created: 'Created',
  updated: 'Changed',
  deleted: 'Deleted',
  restored: 'Restored',
};

export const STALE_RESTORE =
  'Someone changed this term after it was shown here, so that version was not restored. ' +
  'The term and its history are shown as they are now.';

/**
 * The history's first page, and a button that brings the older entries a page at a time.
 * `etag` is the term's as shown (undefined for a deleted term): a restore sends it, so it
 * never replaces a change made since.
 */
export function historyList(
  id: number,
  first: HistoryPage,
  handlers: HistoryHandlers,
  etag: string | undefined,
): HTMLElement {
  const deleted = etag === undefined;
  const list = h('ol', { class: 'history-list' });
  const nameOf = nameCache();
  let shown = 0;
  const more = h('button', { type: 'button', class: 'quiet' }, 'Show older changes');
  const status = h('p', { class: 'hint', role: 'status' });
  const show = (page: HistoryPage) => {
    page.entries.forEach((entry, i) => {
      const before = page.entries[i + 1] ?? page.previous;
      const context = { id, handlers, etag, nameOf, deleted };
      list.append(historyItem(entry, before, context, shown++));
    });
    more.hidden = page.older === undefined;
    more.dataset.before = String(page.older ?? '');
    status.textContent = page.older === undefined ? '' : `${page.total - shown} older`;
  };
  more.addEventListener('click', async () => {
    more.disabled = true;
    try {
      const page = await history(id, Number(more.dataset.before));
      if (page) show(page);
    } catch (error) {
      status.textContent =
        error instanceof ApiError ? error.message : 'The older changes could not be loaded.';
    } finally {
      more.disabled = false;
    }
  });
  show(first);
  return h(
    'div',
    {},
    h('h3', {}, 'History'),
    list,
    h('div', { class: 'button-row' }, more, status),
  );
}

interface ItemContext {
  id: number;
  handlers: HistoryHandlers;
  etag: string | undefined;
  nameOf: NameOf;
  deleted: boolean;
}

function historyItem(
  entry: HistoryEntry,
  before: HistoryEntry | undefined,
  { id, handlers, etag, nameOf, deleted }: ItemContext,
  i: number,
): HTMLLIElement {
  const who = entry.by ? ` by ${entry.by}` : '';
  const line = h(
    'p',
    { class: 'history-line' },
    h('strong', {}, ACTIONS[entry.action]),
    `${who}, `,
    h('time', { datetime: entry.at }, when.format(new Date(entry.at))),
  );
  const summary = h(
    'p',
    { class: 'excerpt' },
    h('span', { class: 'history-name' }, entry.term.term),
    ` — ${entry.term.definition.slice(0, 160)}`,
  );
  const item = h('li', {}, line, summary);
  // A change (or a restore) is shown as what it changed; a creation or a deletion as the state.
  const compared = before && before.action !== 'deleted' && entry.action !== 'deleted';
  if (compared) {
    const changes = h('div', { class: 'history-changes' });
    item.append(changes);
    void termChanges(before.term, entry.term, nameOf).then((node) => changes.replaceChildren(node));
  }
  // The newest entry of a live term is its present state: nothing to bring back.
  if (deleted || i > 0) {
    const button = h(
      'button',
      { type: 'button', class: 'quiet' },
      deleted && i === 0 ? 'Bring back as it was' : 'Restore this version',
    );
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        let notes: string[] = [];
        const done = await handlers.write(async () => {
          notes = (await restore(id, entry.revision, etag)).notes;
        });
        if (done) handlers.changed(id, notes);
      } catch (error) {
        if (error instanceof StaleTerm) {
          handlers.stale(id, STALE_RESTORE);
          return;
        }
        item.append(
          h(
            'p',
            { class: 'field-error' },
            error instanceof ApiError ? error.message : 'It could not be restored.',
          ),
        );
      } finally {
        button.disabled = false;
        refocusIfLost(button);
      }
    });
    item.append(button);
  }
  return item;
}
