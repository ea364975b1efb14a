import {
  ApiError,
  getTerm,
  type HistoryEntry,
  type HistoryPage,
  history,
  remove,
  restore,
  type Term,
} from './api.ts';
import { byId, h } from './dom.ts';
import { matcher, richText } from './rich-text.ts';

export interface ViewHandlers {
  /** Runs a change that may need a token; resolves false when the person gave up. */
  write(change: () => Promise<void>): Promise<boolean>;
  edit(term: Term, etag: string): void;
  /** The glossary changed here (deleted, restored): the list should show it. */
  changed(id: number | null): void;
  linkTo(id: number): string;
  select(id: number): void;
  /** Asks before deleting; resolves true to go ahead. */
  confirm(name: string): Promise<boolean>;
}

const when = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });
const ACTIONS: Record<HistoryEntry['action'], string> = {
  created: 'Created',
  updated: 'Changed',
  deleted: 'Deleted',
  restored: 'Restored',
};

/** Bumped by every call, so a slow answer for an earlier selection never shows up late. */
let latest = 0;

/**
 * The chosen term beside the list (sticky on wide screens): its definition with links, its
 * see-also terms by name, and what can be done with it: edit, delete, its history, restore.
 */
export async function showTerm(
  id: number | null,
  q: string,
  handlers: ViewHandlers,
  focus = false,
): Promise<void> {
  const call = ++latest;
  const panel = byId('detail');
  const title = byId('detail-title');
  const body = byId('detail-body');
  if (id === null) {
    title.textContent = 'Choose a term';
    body.replaceChildren(h('p', { class: 'hint' }, 'Choose a term in the list to read it here.'));
    return;
  }
  panel.setAttribute('aria-busy', 'true');
  try {
    const found = await getTerm(id);
    if (call !== latest) return;
    if (found) {
      // Title and body change together, once the see-also names are in: the panel never
      // shows a new heading over the old term's text.
      const nodes = await describe(found.term, found.etag, q, handlers);
      if (call !== latest) return;
      title.textContent = found.term.term;
      body.replaceChildren(...nodes);
    } else {
      const page = await history(id);
      if (call !== latest) return;
      title.textContent = page ? 'This term was deleted' : 'No such term';
      body.replaceChildren(
        ...(page
          ? [
              h('p', {}, 'It can be brought back from its history.'),
              historyList(id, page, handlers, true),
            ]
          : [h('p', {}, `No term has the ID ${id}.`)]),
      );
    }
  } catch (error) {
    if (call !== latest) return;
    title.textContent = 'This term cannot be shown';
    body.replaceChildren(
      h('p', {}, error instanceof ApiError ? error.message : 'It could not be loaded. Try again.'),
    );
  } finally {
    if (call === latest) panel.removeAttribute('aria-busy');
  }
  if (focus && call === latest) panel.focus();
}

async function describe(
  term: Term,
  etag: string,
  q: string,
  handlers: ViewHandlers,
): Promise<Node[]> {
  const definition = h('p', { class: 'definition' });
  definition.append(...richText(term.definition, matcher(q)));
  const facts = h(
    'dl',
    { class: 'facts' },
    ...otherNames('Also called', 'aliases', term.aliases),
    ...otherNames('Avoid', 'avoid', term.avoid),
    h('dt', {}, 'Category'),
    h('dd', { class: 'category' }, term.category),
    h('dt', {}, 'ID'),
    h('dd', {}, String(term.id)),
  );
  const nodes: Node[] = [definition, facts];
  if (term.see_also.length > 0) {
    const related = await Promise.all(term.see_also.map((id) => relatedItem(id, handlers)));
    nodes.push(h('h3', {}, 'See also'), h('ul', { class: 'see-also' }, ...related));
  }

  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const historyBox = h('div', { class: 'history' });
  const edit = h('button', { type: 'button' }, 'Edit');
  edit.addEventListener('click', () => handlers.edit(term, etag));
  const del = h('button', { type: 'button', class: 'danger' }, 'Delete');
  del.addEventListener('click', async () => {
    if (!(await handlers.confirm(term.term))) return;
    del.disabled = true;
    try {
      const done = await handlers.write(() => remove(term.id, etag));
      if (done) {
        status.textContent = `“${term.term}” was deleted. Its history can bring it back.`;
        handlers.changed(term.id);
      }
    } catch (error) {
      status.textContent = error instanceof ApiError ? error.message : 'It could not be deleted.';
    } finally {
      del.disabled = false;
    }
  });
  const show = h('button', { type: 'button', 'aria-expanded': 'false' }, 'History');
  show.addEventListener('click', async () => {
    const open = show.getAttribute('aria-expanded') === 'true';
    show.setAttribute('aria-expanded', String(!open));
    if (open) {
      historyBox.replaceChildren();
      return;
    }
    historyBox.replaceChildren(h('p', { class: 'hint' }, 'Loading the history…'));
    try {
      const page = (await history(term.id)) ?? { entries: [], total: 0, older: undefined };
      historyBox.replaceChildren(historyList(term.id, page, handlers, false));
    } catch (error) {
      historyBox.replaceChildren(
        h('p', {}, error instanceof ApiError ? error.message : 'The history could not be loaded.'),
      );
    }
  });
  nodes.push(h('div', { class: 'button-row actions' }, edit, del, show), status, historyBox);
  return nodes;
}

/** A term's aliases or names to avoid, as a line of the facts: nothing when it has none. */
function otherNames(label: string, kind: string, names: string[] | undefined): HTMLElement[] {
  if (!names || names.length === 0) return [];
  const items = names.flatMap((name, i) => [
    i > 0 ? ', ' : '',
    h('span', { class: 'other-name' }, name),
  ]);
  return [h('dt', {}, label), h('dd', { class: kind }, ...items)];
}

/** The history's first page, and a button that brings the older entries a page at a time. */
function historyList(
  id: number,
  first: HistoryPage,
  handlers: ViewHandlers,
  deleted: boolean,
): HTMLElement {
  const list = h('ol', { class: 'history-list' });
  let shown = 0;
  const more = h('button', { type: 'button', class: 'quiet' }, 'Show older changes');
  const status = h('p', { class: 'hint', role: 'status' });
  const show = (page: HistoryPage) => {
    list.append(...page.entries.map((entry) => historyItem(id, entry, handlers, deleted, shown++)));
    more.hidden = page.older === undefined;
    more.dataset.before = String(page.older ?? '');
    status.textContent =
      page.older === undefined ? '' : `${page.total - page.entries.length} older`;
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

function historyItem(
  id: number,
  entry: HistoryEntry,
  handlers: ViewHandlers,
  deleted: boolean,
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
        const done = await handlers.write(async () => {
          await restore(id, entry.revision);
        });
        if (done) handlers.changed(id);
      } catch (error) {
        item.append(
          h(
            'p',
            { class: 'field-error' },
            error instanceof ApiError ? error.message : 'It could not be restored.',
          ),
        );
      } finally {
        button.disabled = false;
      }
    });
    item.append(button);
  }
  return item;
}

async function relatedItem(id: number, handlers: ViewHandlers): Promise<HTMLLIElement> {
  try {
    const found = await getTerm(id);
    if (!found) return h('li', { class: 'unresolved' }, `ID ${id} (no such term)`);
    const link = h('a', { href: handlers.linkTo(id) }, found.term.term);
    link.addEventListener('click', (event) => {
      if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
      event.preventDefault();
      handlers.select(id);
    });
    return h('li', {}, link);
  } catch {
    return h('li', { class: 'unresolved' }, `ID ${id} (could not be loaded)`);
  }
}
