import { ApiError, listTerms, type Term } from './api.ts';
import { byId, h, termLink } from './dom.ts';

const SEARCH_DELAY_MS = 250;
/** The API has no paging; past this many, the list asks for a narrower search instead. */
const MAX_SHOWN = 1000;

/**
 * The list with its search box and category buttons. Only the latest request is shown: a
 * slower earlier answer never overwrites a newer one (it is aborted).
 */
export function setUpTermList(): {
  reload(): Promise<void>;
  markSelected(id: number | null): void;
} {
  const list = byId<HTMLUListElement>('terms');
  const status = byId('list-status');
  const search = byId<HTMLInputElement>('search');
  const buttons = [...document.querySelectorAll<HTMLButtonElement>('button[data-category]')];
  let category = '';
  let selected: number | null = null;
  let inFlight: AbortController | null = null;
  let timer: number | undefined;

  async function reload(): Promise<void> {
    inFlight?.abort();
    const controller = new AbortController();
    inFlight = controller;
    list.setAttribute('aria-busy', 'true');
    try {
      const terms = await listTerms({ category, search: search.value }, controller.signal);
      if (controller.signal.aborted) return;
      render(terms);
    } catch (error) {
      if (controller.signal.aborted) return;
      list.replaceChildren();
      status.textContent =
        error instanceof ApiError ? error.message : 'The terms could not be loaded.';
    } finally {
      if (inFlight === controller) list.removeAttribute('aria-busy');
    }
  }

  function render(terms: Term[]): void {
    list.replaceChildren(
      ...terms.slice(0, MAX_SHOWN).map((term) => {
        const link = termLink(term.id, term.term);
        if (term.id === selected) link.setAttribute('aria-current', 'true');
        return h('li', {}, link, ' ', h('span', { class: 'category' }, term.category));
      }),
    );
    const filtered = category !== '' || search.value !== '';
    const count = `${terms.length} ${terms.length === 1 ? 'term' : 'terms'}`;
    if (terms.length === 0) {
      status.textContent = filtered ? 'No term matches.' : 'The glossary is empty.';
    } else if (terms.length > MAX_SHOWN) {
      status.textContent = `${count}; the first ${MAX_SHOWN} are shown: search to narrow them.`;
    } else {
      status.textContent = count;
    }
  }

  function markSelected(id: number | null): void {
    selected = id;
    for (const link of list.querySelectorAll('a')) {
      if (link.getAttribute('href') === `#/terms/${id}`) link.setAttribute('aria-current', 'true');
      else link.removeAttribute('aria-current');
    }
  }

  search.addEventListener('input', () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void reload(), SEARCH_DELAY_MS);
  });
  for (const button of buttons) {
    button.addEventListener('click', () => {
      category = button.dataset.category ?? '';
      for (const other of buttons) other.setAttribute('aria-pressed', String(other === button));
      window.clearTimeout(timer);
      void reload();
    });
  }
  return { reload, markSelected };
}
