import { MAX_SEE_ALSO } from '../../glossary/term.ts';
import { findTerms, getTerm, type Term } from './api.ts';
import { byId, h } from './dom.ts';

/**
 * The form's see-also terms, picked by name: a combobox (ARIA 1.2: the input owns a listbox
 * through aria-controls and aria-activedescendant; arrows move, Enter picks, Escape closes)
 * over `GET /terms?q=`, and the chosen terms as chips with a remove button. A number typed is
 * looked up as an id, and an id that names no term is refused here, in words.
 */

const SEARCH_DELAY_MS = 200;
const OPTIONS = 10;
const integer = /^\s*#?(\d+)\s*$/;

export interface SeeAlsoPicker {
  /** The chosen ids, in order. */
  ids(): number[];
  /** The chosen ids whose term no longer exists (shown as "no such term"). */
  missing(): number[];
  /** Shows these ids (their names are looked up); the term's own id is never offered. */
  set(ids: number[], own?: number): Promise<void>;
}

export function setUpSeeAlsoPicker(): SeeAlsoPicker {
  const input = byId<HTMLInputElement>('form-see-also');
  const listbox = byId('see-also-options');
  const chips = byId<HTMLUListElement>('see-also-chips');
  const status = byId('see-also-status');
  let chosen: { id: number; name: string | null }[] = [];
  let own: number | undefined;
  let found: Term[] = [];
  let active = -1;
  let timer: number | undefined;
  let asking: AbortController | null = null;

  function close(): void {
    listbox.hidden = true;
    listbox.replaceChildren();
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
    found = [];
    active = -1;
  }

  function highlight(index: number): void {
    active = index;
    for (const [i, option] of [...listbox.children].entries()) {
      option.setAttribute('aria-selected', String(i === index));
    }
    const option = listbox.children[index];
    if (option) {
      input.setAttribute('aria-activedescendant', option.id);
      option.scrollIntoView({ block: 'nearest' });
    } else input.removeAttribute('aria-activedescendant');
  }

  function open(terms: Term[]): void {
    found = terms.filter((term) => term.id !== own && !chosen.some((c) => c.id === term.id));
    listbox.replaceChildren(
      ...found.map((term, i) => {
        const option = h(
          'div',
          { role: 'option', id: `see-also-option-${i}`, 'aria-selected': 'false' },
          term.term,
          h('span', { class: 'hint' }, ` ${term.category}, ID ${term.id}`),
        );
        // Pressing keeps the focus in the input, so the list is still there to click.
        option.addEventListener('mousedown', (event) => event.preventDefault());
        option.addEventListener('click', () => pick(i));
        return option;
      }),
    );
    const any = found.length > 0;
    listbox.hidden = !any;
    input.setAttribute('aria-expanded', String(any));
    active = -1;
    if (!any) status.textContent = `No term found for “${input.value.trim()}”.`;
    else status.textContent = `${found.length} ${found.length === 1 ? 'term' : 'terms'} found.`;
  }

  async function search(text: string): Promise<void> {
    asking?.abort();
    const controller = new AbortController();
    asking = controller;
    const id = integer.exec(text)?.[1];
    try {
      if (id !== undefined) {
        const term = await getTerm(Number(id));
        if (controller.signal.aborted) return;
        if (!term) {
          close();
          status.textContent = `No term has the ID ${id}: a see-also link must lead to a term.`;
          return;
        }
        open([term.term]);
        return;
      }
      const terms = await findTerms(text, OPTIONS, controller.signal);
      if (!controller.signal.aborted) open(terms);
    } catch (error) {
      if ((error as Error).name === 'AbortError') return;
      close();
      status.textContent = 'The terms could not be looked up. Try again.';
    }
  }

  function pick(index: number): void {
    const term = found[index];
    if (!term) return;
    if (chosen.length >= MAX_SEE_ALSO) {
      status.textContent = `A term can point to at most ${MAX_SEE_ALSO} others.`;
      return;
    }
    chosen.push({ id: term.id, name: term.term });
    render();
    input.value = '';
    close();
    status.textContent = `“${term.term}” added to see also.`;
  }

  function render(): void {
    chips.replaceChildren(
      ...chosen.map(({ id, name }) => {
        const label = name ?? `ID ${id} (no such term)`;
        const remove = h(
          'button',
          { type: 'button', class: 'chip-remove', 'aria-label': `Remove ${label}` },
          '×',
        );
        remove.addEventListener('click', () => {
          chosen = chosen.filter((c) => c.id !== id);
          render();
          status.textContent = `“${label}” removed from see also.`;
          input.focus();
        });
        return h('li', { class: name === null ? 'chip unresolved' : 'chip' }, label, remove);
      }),
    );
    chips.hidden = chosen.length === 0;
  }

  input.addEventListener('input', () => {
    window.clearTimeout(timer);
    const text = input.value.trim();
    if (!text) {
      asking?.abort();
      close();
      status.textContent = '';
      return;
    }
    timer = window.setTimeout(() => void search(text), SEARCH_DELAY_MS);
  });
  input.addEventListener('keydown', (event) => {
    const expanded = input.getAttribute('aria-expanded') === 'true';
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      if (!expanded) return;
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      highlight((active + step + found.length) % found.length);
    } else if (event.key === 'Enter') {
      // Enter here picks a term; it never sends the form with a name half typed.
      if (expanded || input.value.trim()) event.preventDefault();
      if (expanded) pick(active >= 0 ? active : 0);
    } else if (event.key === 'Escape' && (expanded || input.value)) {
      // Closes the list (or clears the text), not the whole form.
      event.preventDefault();
      event.stopPropagation();
      if (expanded) close();
      else input.value = '';
    }
  });
  input.addEventListener('blur', () => close());

  return {
    ids: () => chosen.map(({ id }) => id),
    missing: () => chosen.filter(({ name }) => name === null).map(({ id }) => id),
    async set(ids, ownId) {
      own = ownId;
      close();
      input.value = '';
      status.textContent = '';
      chosen = await Promise.all(
        ids.map(async (id) => ({
          id,
          name: await getTerm(id).then(
            (found) => found?.term.term ?? null,
            () => null,
          ),
        })),
      );
      render();
    },
  };
}
