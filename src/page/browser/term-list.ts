import { ApiError, listPage, PAGE_SIZE, pageBefore, type Term, type View } from './api.ts';
import { byId, h } from './dom.ts';
import { marked, matcher } from './rich-text.ts';

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('');
/** After Z in the order names sort in: names that start with accented and other letters. */
const AFTER_Z = '{';
const count = new Intl.NumberFormat('en');

export interface ListHandlers {
  /** A term was chosen in the list. */
  select(id: number): void;
  /** The list moved (a page, a letter): the new view, to keep in the address. */
  moved(view: View): void;
  /** The address of a term in this view, for the link (open in a new tab works too). */
  linkTo(id: number): string;
}

/**
 * The list: one page at a time (never the whole glossary), alphabetical from a letter or
 * ranked by a search, definitions' first lines shown, matches marked. Only the latest request
 * is shown: an earlier, slower answer is dropped (aborted).
 */
export function setUpTermList(handlers: ListHandlers) {
  const list = byId<HTMLOListElement>('terms');
  const status = byId('list-status');
  const position = byId('page-position');
  const previous = byId<HTMLButtonElement>('previous-page');
  const next = byId<HTMLButtonElement>('next-page');
  const alphabet = byId('alphabet');
  let view: View = { q: '', category: '', from: '', offset: 0 };
  let total = 0;
  let selected: number | null = null;
  let inFlight: AbortController | null = null;

  const letters = [...LETTERS, 'Other'].map((letter) => {
    const from = letter === 'Other' ? AFTER_Z : letter.toLowerCase();
    const button = h(
      'button',
      {
        type: 'button',
        'data-from': from,
        'aria-label': letter === 'Other' ? 'Other letters' : `Letter ${letter}`,
      },
      letter,
    );
    button.addEventListener('click', () => go({ ...view, q: '', from, offset: 0 }, true));
    return button;
  });
  alphabet.replaceChildren(...letters);

  async function load(wanted: View): Promise<void> {
    view = wanted;
    inFlight?.abort();
    const controller = new AbortController();
    inFlight = controller;
    list.setAttribute('aria-busy', 'true');
    status.textContent = wanted.q.trim() ? 'Searching…' : 'Loading…';
    try {
      const page = await listPage(wanted, controller.signal);
      if (controller.signal.aborted) return;
      total = page.total;
      render(page.terms);
    } catch (error) {
      if (controller.signal.aborted) return;
      list.replaceChildren();
      total = 0;
      status.textContent =
        error instanceof ApiError ? error.message : 'The terms could not be loaded. Try again.';
      updatePager(0);
      if (error instanceof ApiError && error.status === 401) throw error;
    } finally {
      if (inFlight === controller) list.removeAttribute('aria-busy');
    }
  }

  function render(terms: Term[]): void {
    const finds = matcher(view.q);
    list.replaceChildren(
      ...terms.map((term) => {
        const link = h('a', { href: handlers.linkTo(term.id), 'data-id': String(term.id) });
        link.append(...marked(term.term, finds));
        if (term.id === selected) link.setAttribute('aria-current', 'true');
        link.addEventListener('click', (event) => {
          if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
          event.preventDefault();
          handlers.select(term.id);
        });
        const excerpt = h('p', { class: 'excerpt' });
        excerpt.append(...marked(term.definition.slice(0, 300), finds));
        return h(
          'li',
          {},
          h('div', { class: 'term-line' }, link, h('span', { class: 'category' }, term.category)),
          excerpt,
        );
      }),
    );
    status.textContent = describe(terms.length);
    updatePager(terms.length);
    for (const button of letters) {
      const current = !view.q.trim() && button.dataset.from === view.from;
      if (current) button.setAttribute('aria-current', 'true');
      else button.removeAttribute('aria-current');
    }
  }

  function describe(shown: number): string {
    const searching = view.q.trim() !== '';
    if (total === 0) {
      if (searching)
        return `No term matches “${view.q.trim()}”. Check the spelling or try fewer words.`;
      if (view.from) return 'No term comes after this letter.';
      return view.category
        ? 'No term in this category yet.'
        : 'The glossary is empty. Add the first term.';
    }
    const range = `${count.format(view.offset + 1)}–${count.format(view.offset + shown)}`;
    const of = `${count.format(total)} ${total === 1 ? 'term' : 'terms'}`;
    if (searching) return `${of} found for “${view.q.trim()}”, best first: ${range}.`;
    if (view.from)
      return `From “${view.from === AFTER_Z ? 'other letters' : view.from.toUpperCase()}”: ${range} of ${of}.`;
    return `${range} of ${of}, A to Z.`;
  }

  function updatePager(shown: number): void {
    position.textContent =
      total > PAGE_SIZE ? `Page ${count.format(Math.floor(view.offset / PAGE_SIZE) + 1)}` : '';
    const atStart = view.offset === 0 && (view.q.trim() !== '' || view.from === '');
    previous.disabled = atStart;
    next.disabled = view.offset + shown >= total;
  }

  async function go(wanted: View, announce: boolean): Promise<void> {
    await load(wanted);
    if (announce) handlers.moved(view);
  }

  next.addEventListener('click', () => {
    void go({ ...view, offset: view.offset + PAGE_SIZE }, true).then(() => list.focus());
  });
  previous.addEventListener('click', async () => {
    if (view.offset > 0) {
      await go({ ...view, offset: Math.max(0, view.offset - PAGE_SIZE) }, true);
    } else if (view.from) {
      // Before an A-Z place: the page just before it becomes the new place.
      const before = await pageBefore(view);
      const first = before[0];
      await go({ ...view, from: first ? first.term : '', offset: 0 }, true);
    }
    list.focus();
  });

  return {
    load: (wanted: View) => load(wanted),
    reload: () => load(view),
    markSelected(id: number | null): void {
      selected = id;
      for (const link of list.querySelectorAll<HTMLAnchorElement>('a[data-id]')) {
        if (link.dataset.id === String(id)) link.setAttribute('aria-current', 'true');
        else link.removeAttribute('aria-current');
      }
    },
    get view(): View {
      return view;
    },
  };
}
