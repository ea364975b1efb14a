import { PAGE_SIZE } from './api.ts';
import { byId } from './dom.ts';

const count = new Intl.NumberFormat('en');

export interface PagerHandlers {
  /** Show the page that starts at this offset. */
  go(offset: number): Promise<void>;
  /** Previous on a first page: the letter before, or the page before a place. */
  before(): Promise<void>;
  /** Next on a letter's last page: the letter after. */
  after(): Promise<void>;
}

export interface PagerState {
  offset: number;
  shown: number;
  total: number;
  /** There is something before the first page (a letter, the names before a place). */
  before: boolean;
  /** There is something after the last page (the next letter). */
  after: boolean;
}

/**
 * Previous, Next, and "Page [n] of N", where a page number can be typed (Enter goes there;
 * a number past the end goes to the last page).
 */
export function setUpPager(handlers: PagerHandlers) {
  const previous = byId<HTMLButtonElement>('previous-page');
  const next = byId<HTMLButtonElement>('next-page');
  const form = byId<HTMLFormElement>('page-form');
  const input = byId<HTMLInputElement>('page-number');
  const pages = byId('page-count');
  let state: PagerState = { offset: 0, shown: 0, total: 0, before: false, after: false };
  const lastPage = () => Math.max(1, Math.ceil(state.total / PAGE_SIZE));

  next.addEventListener('click', () => {
    if (state.offset + state.shown < state.total) void handlers.go(state.offset + PAGE_SIZE);
    else if (state.after) void handlers.after();
  });
  previous.addEventListener('click', () => {
    if (state.offset > 0) void handlers.go(Math.max(0, state.offset - PAGE_SIZE));
    else if (state.before) void handlers.before();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const typed = Number(input.value.trim());
    if (!Number.isInteger(typed)) {
      input.value = String(Math.floor(state.offset / PAGE_SIZE) + 1);
      return;
    }
    const page = Math.min(Math.max(typed, 1), lastPage());
    void handlers.go((page - 1) * PAGE_SIZE);
  });

  return {
    update(now: PagerState): void {
      state = now;
      const several = now.total > PAGE_SIZE || now.offset > 0;
      form.hidden = !several;
      input.value = String(Math.floor(now.offset / PAGE_SIZE) + 1);
      input.max = String(lastPage());
      pages.textContent = `of ${count.format(lastPage())}`;
      previous.disabled = now.offset === 0 && !now.before;
      next.disabled = now.offset + now.shown >= now.total && !now.after;
    },
  };
}
