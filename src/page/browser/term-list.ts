import { groupOf, groupOfName, type LetterGroup, letterButtons } from './alphabet.ts';
import {
  ApiError,
  firstOf,
  lastBefore,
  listPage,
  PAGE_SIZE,
  pageBefore,
  type Term,
  type View,
} from './api.ts';
import { byId, h } from './dom.ts';
import { setUpPager } from './pager.ts';
import { marked, matcher } from './rich-text.ts';

const count = new Intl.NumberFormat('en');

export interface ListHandlers {
  /** A term was chosen in the list. */
  select(id: number): void;
  /**
   * The list moved: the new view, to keep in the address. `push` for a move the person made
   * (a page, a letter), `replace` for a correction (an offset past the end became the last page).
   */
  moved(view: View, how: 'push' | 'replace'): void;
  /** The address of a term in this view, for the link (open in a new tab works too). */
  linkTo(id: number): string;
}

/** The list as shown: its view, and for a letter how many terms it holds (a download stops there). */
export interface ShownList {
  view: View;
  /** The view as the API reads it (a letter's `from` is its start). */
  query: View;
  /** With a letter: its terms, which the API's `from` does not end at. */
  limit: number | null;
  letter: LetterGroup | null;
}

/**
 * The list: one page at a time (never the whole glossary), alphabetical, one letter's terms
 * or ranked by a search, definitions' first lines shown, matches marked. Only the latest
 * request is shown: an earlier, slower answer is dropped (aborted).
 */
export function setUpTermList(handlers: ListHandlers) {
  const list = byId<HTMLOListElement>('terms');
  const status = byId('list-status');
  let view: View = { q: '', category: '', from: '', offset: 0 };
  let total = 0;
  let selected: number | null = null;
  let inFlight: AbortController | null = null;
  /** Beside a letter: the letters with terms just before and after it, if any. */
  let neighbours: { before: LetterGroup | null; after: LetterGroup | null } = {
    before: null,
    after: null,
  };

  const alphabet = letterButtons(byId('alphabet'), (group) =>
    go({ ...view, q: '', from: group.key, offset: 0 }),
  );
  const pager = setUpPager({
    go: (offset) => go({ ...view, offset }).then(toTop),
    before: () => stepBefore().then(toTop),
    after: () => stepAfter().then(toTop),
  });

  /** The view as the API reads it, and how many of its terms belong to it. */
  function shown(wanted: View): ShownList {
    const letter = wanted.q.trim() ? null : groupOf(wanted.from);
    return {
      view: wanted,
      query: letter ? { ...wanted, from: letter.start } : wanted,
      limit: null,
      letter,
    };
  }

  /**
   * Shows `wanted`. An offset past the end (a shared address after deletions) shows the last
   * page instead; `corrected` is told of it, to correct the address.
   */
  async function load(wanted: View, corrected?: (view: View) => void): Promise<void> {
    view = wanted;
    inFlight?.abort();
    const controller = new AbortController();
    inFlight = controller;
    list.setAttribute('aria-busy', 'true');
    status.textContent = wanted.q.trim() ? 'Searching…' : 'Loading…';
    try {
      const { query, letter } = shown(wanted);
      const signal = controller.signal;
      // A letter's page, the first name after the letter (its count gives the letter's), and
      // on its first page the name before it: where Previous and Next go past its ends.
      const [page, after, before] = await Promise.all([
        listPage(query, signal),
        letter?.end ? firstOf({ ...query, from: letter.end }, signal) : undefined,
        letter?.start && wanted.offset === 0 ? lastBefore(query, signal) : undefined,
      ]);
      if (signal.aborted) return;
      total = page.total - (after?.total ?? 0);
      neighbours = {
        before: before ? groupOfName(before.term) : null,
        after: after?.first ? groupOfName(after.first.term) : null,
      };
      if (total > 0 && wanted.offset >= total) {
        const last = Math.floor((total - 1) / PAGE_SIZE) * PAGE_SIZE;
        await load({ ...wanted, offset: last });
        corrected?.(view);
        return;
      }
      render(page.terms.slice(0, Math.max(0, total - wanted.offset)));
    } catch (error) {
      if (controller.signal.aborted) return;
      list.replaceChildren();
      total = 0;
      status.textContent =
        error instanceof ApiError ? error.message : 'The terms could not be loaded. Try again.';
      pager.update({ offset: 0, shown: 0, total: 0, before: false, after: false });
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
    const searching = view.q.trim() !== '';
    const letter = searching ? null : groupOf(view.from);
    pager.update({
      offset: view.offset,
      shown: terms.length,
      total,
      // Previous goes on to the letter before, or from a place in the alphabet (an older
      // address) to the page before it; Next goes on to the letter after.
      before: letter ? neighbours.before !== null : !searching && view.from !== '',
      after: letter !== null && neighbours.after !== null,
    });
    alphabet.mark(searching ? null : (letter?.key ?? null));
  }

  function describe(shown: number): string {
    const searching = view.q.trim() !== '';
    const letter = searching ? null : groupOf(view.from);
    const inCategory = view.category ? ' in this category' : '';
    if (total === 0) {
      if (searching)
        return `No term matches “${view.q.trim()}”. Check the spelling or try fewer words.`;
      if (letter?.start === '') return `No term${inCategory} starts with a digit or a symbol.`;
      if (letter?.end === null) return `No term${inCategory} starts with another letter.`;
      if (letter) return `No term${inCategory} starts with “${letter.label}”.`;
      if (view.from) return 'No term comes after this place.';
      return view.category
        ? 'No term in this category yet.'
        : 'The glossary is empty. Add the first term.';
    }
    const range = `${count.format(view.offset + 1)}–${count.format(view.offset + shown)}`;
    const of = `${count.format(total)} ${total === 1 ? 'term' : 'terms'}`;
    if (searching) {
      const found = `${of} found for “${view.q.trim()}”`;
      // A range is worth saying only when the results span pages.
      if (view.offset === 0 && shown === total)
        return total === 1 ? `${found}.` : `${found}, best first.`;
      return `${found}, best first: ${range}.`;
    }
    if (letter) {
      const name = letter.start && letter.end ? `Starting with “${letter.label}”` : letter.name;
      return `${name}: ${range} of ${of}.`;
    }
    if (view.from) return `From “${view.from}”: ${range} of ${of}.`;
    return `${range} of ${of}, A to Z.`;
  }

  async function go(wanted: View): Promise<void> {
    await load(wanted);
    handlers.moved(view, 'push');
  }

  /**
   * Previous on a first page: a letter's goes to the last page of the letter before (an offset
   * past the end shows the last page); a place's page just before it becomes the new place.
   */
  async function stepBefore(): Promise<void> {
    if (neighbours.before && groupOf(view.from)) {
      await go({ ...view, from: neighbours.before.key, offset: Number.MAX_SAFE_INTEGER });
      return;
    }
    const [first] = await pageBefore(view);
    await go({ ...view, from: first ? first.term : '', offset: 0 });
  }

  /** Next on a letter's last page: the next letter with terms. */
  async function stepAfter(): Promise<void> {
    if (neighbours.after) await go({ ...view, from: neighbours.after.key, offset: 0 });
  }

  /** After a move between pages: the new page's start in view, the focus on the list. */
  function toTop(): void {
    list.focus({ preventScroll: true });
    status.scrollIntoView({ block: 'start' });
  }

  return {
    load: (wanted: View) => load(wanted, (view) => handlers.moved(view, 'replace')),
    reload: () => load(view),
    markSelected(id: number | null): void {
      selected = id;
      for (const link of list.querySelectorAll<HTMLAnchorElement>('a[data-id]')) {
        if (link.dataset.id === String(id)) link.setAttribute('aria-current', 'true');
        else link.removeAttribute('aria-current');
      }
    },
    /** The list now, for a download: the API's view and, for a letter, how many terms. */
    get shown(): ShownList {
      const now = shown(view);
      return { ...now, limit: now.letter ? total : null };
    },
    /** The first result's link, or null when the list is empty. */
    get firstLink(): HTMLAnchorElement | null {
      return list.querySelector('a[data-id]');
    },
  };
}
