import { ApiError, getTerm, history, linksTo, remove, type Term } from './api.ts';
import { byId, h, refocusIfLost } from './dom.ts';
import { matcher, richText } from './rich-text.ts';
import { type HistoryHandlers, historyList } from './term-history.ts';

export interface ViewHandlers {
  /** Runs a change that may need a token; resolves false when the person gave up. */
  write(change: () => Promise<void>): Promise<boolean>;
  edit(term: Term, etag: string): void;
  /** The glossary changed here (deleted, restored): the list should show it. */
  changed(id: number | null): void;
  linkTo(id: number): string;
  select(id: number): void;
  /** Asks before deleting, naming the terms that link to it; resolves true to go ahead. */
  confirm(name: string, linkedFrom: string[], more: number): Promise<boolean>;
}

/** What to show with the term: a notice (why it is shown again), its history open. */
interface Extras {
  notice?: string;
  history?: boolean;
}

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
  extras: Extras = {},
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
      const nodes = await describe(found.term, found.etag, q, handlers, extras);
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
              ...(extras.notice ? [h('p', { role: 'status' }, extras.notice)] : []),
              h('p', {}, 'It can be brought back from its history.'),
              historyList(id, page, historyHandlers(q, handlers), undefined),
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

/** The history's handlers: a refused restore shows the term again, its history open. */
function historyHandlers(q: string, handlers: ViewHandlers): HistoryHandlers {
  return {
    write: handlers.write,
    changed(id, notes) {
      handlers.changed(id);
      // Shown after the list's own redraw of the term, which it replaces (the latest wins).
      if (notes.length > 0) {
        void showTerm(id, q, handlers, true, { notice: `Restored. ${notes.join(' ')}` });
      }
    },
    // As after a restore: the pressed button is replaced, so the panel takes the focus.
    stale: (id, notice) => void showTerm(id, q, handlers, true, { notice, history: true }),
  };
}

async function describe(
  term: Term,
  etag: string,
  q: string,
  handlers: ViewHandlers,
  extras: Extras,
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
  const [related, linked] = await Promise.all([
    Promise.all(term.see_also.map((id) => relatedItem(id, handlers))),
    linkedFrom(term.id, handlers),
  ]);
  if (related.length > 0) {
    nodes.push(h('h3', {}, 'See also'), h('ul', { class: 'see-also' }, ...related));
  }
  nodes.push(...linked);

  const status = h(
    'p',
    { class: 'status', role: 'status', 'aria-live': 'polite' },
    extras.notice ?? '',
  );
  const historyBox = h('div', { class: 'history' });
  const edit = h('button', { type: 'button' }, 'Edit');
  edit.addEventListener('click', () => handlers.edit(term, etag));
  const del = h('button', { type: 'button', class: 'danger' }, 'Delete');
  del.addEventListener('click', async () => {
    del.disabled = true;
    // Asked now, not when the term was shown: a link made since is named too.
    const links = await linksTo(term.id, LINKS_NAMED).catch(() => ({ terms: [], total: 0 }));
    const names = links.terms.map((other) => other.term);
    del.disabled = false;
    if (!(await handlers.confirm(term.term, names, links.total - names.length))) return;
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
      refocusIfLost(del);
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
      const page = (await history(term.id)) ?? {
        entries: [],
        total: 0,
        older: undefined,
        previous: undefined,
      };
      historyBox.replaceChildren(historyList(term.id, page, historyHandlers(q, handlers), etag));
    } catch (error) {
      historyBox.replaceChildren(
        h('p', {}, error instanceof ApiError ? error.message : 'The history could not be loaded.'),
      );
    }
  });
  nodes.push(h('div', { class: 'button-row actions' }, edit, del, show), status, historyBox);
  if (extras.history) show.click();
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

/** How many linking terms the page names (in the panel, and when a delete asks). */
const LINKS_SHOWN = 20;
const LINKS_NAMED = 10;

/** "Linked from": the terms whose see-also leads here, by name, as links; nothing when none. */
async function linkedFrom(id: number, handlers: ViewHandlers): Promise<Node[]> {
  try {
    const { terms, total } = await linksTo(id, LINKS_SHOWN);
    if (terms.length === 0) return [];
    const items = terms.map((other) => h('li', {}, termLink(other.id, other.term, handlers)));
    if (total > terms.length) {
      items.push(h('li', { class: 'hint' }, `and ${total - terms.length} more`));
    }
    return [h('h3', {}, 'Linked from'), h('ul', { class: 'linked-from' }, ...items)];
  } catch {
    return [h('p', { class: 'hint' }, 'The terms that link here could not be loaded.')];
  }
}

/** A link to a term that shows it in the panel (a new tab or window on a modified click). */
function termLink(id: number, name: string, handlers: ViewHandlers): HTMLAnchorElement {
  const link = h('a', { href: handlers.linkTo(id) }, name);
  link.addEventListener('click', (event) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    handlers.select(id);
  });
  return link;
}

async function relatedItem(id: number, handlers: ViewHandlers): Promise<HTMLLIElement> {
  try {
    const found = await getTerm(id);
    if (!found) return h('li', { class: 'unresolved' }, `ID ${id} (no such term)`);
    return h('li', {}, termLink(id, found.term.term, handlers));
  } catch {
    return h('li', { class: 'unresolved' }, `ID ${id} (could not be loaded)`);
  }
}
