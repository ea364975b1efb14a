import './styles.css';
import { ApiError, TokenNeeded } from './api.ts';
import { askForToken, confirmDelete, withToken } from './dialogs.ts';
import { byId } from './dom.ts';
import { setUpDownloads } from './downloads.ts';
import { setUpImport } from './import-panel.ts';
import { setUpTermForm } from './term-form.ts';
import { setUpTermList } from './term-list.ts';
import { showTerm, type ViewHandlers } from './term-view.ts';
import { type PageState, readState, stateUrl, writeState } from './url-state.ts';

/**
 * The page: the list and the chosen term, both from the address, so a reload or a shared link
 * shows the same view. Everything goes through the public API, a page at a time.
 */

const SEARCH_DELAY_MS = 200;
let state: PageState = readState();

const linkTo = (id: number) => stateUrl({ ...state, term: id });

const list = setUpTermList({
  select: (id) => select(id),
  moved(view) {
    state = { ...state, ...view };
    writeState(state, 'push');
  },
  linkTo,
});

const handlers: ViewHandlers = {
  write: withToken,
  edit: (term, etag) => form.edit(term, etag),
  changed(id) {
    void list.reload().catch(needsToken);
    void showTerm(id, state.q, handlers);
  },
  linkTo,
  select: (id) => select(id),
  confirm: confirmDelete,
};

const form = setUpTermForm({
  write: withToken,
  saved(id) {
    void list.reload().catch(needsToken);
    select(id);
  },
  linkTo,
});

function select(id: number): void {
  state = { ...state, term: id };
  writeState(state, 'push');
  list.markSelected(id);
  void showTerm(id, state.q, handlers, true).then(() => {
    // On a phone the term sits below the list: bring it into view.
    if (window.matchMedia('(max-width: 47.99rem)').matches) {
      byId('detail').scrollIntoView({ block: 'start' });
    }
  });
}

/** Reads need a token (READ_ACCESS=token): ask for one, then show the view again. */
async function needsToken(error: unknown): Promise<void> {
  if (!(error instanceof TokenNeeded)) return;
  if (await askForToken(error.message)) await render();
}

async function render(): Promise<void> {
  const search = byId<HTMLInputElement>('q');
  const category = byId<HTMLSelectElement>('category');
  search.value = state.q;
  category.value = state.category;
  list.markSelected(state.term);
  await Promise.all([list.load(state).catch(needsToken), showTerm(state.term, state.q, handlers)]);
}

let timer: number | undefined;
byId<HTMLInputElement>('q').addEventListener('input', (event) => {
  window.clearTimeout(timer);
  const q = (event.target as HTMLInputElement).value;
  timer = window.setTimeout(() => {
    state = { ...state, q, from: '', offset: 0 };
    writeState(state, 'replace');
    void list.load(state).catch(needsToken);
  }, SEARCH_DELAY_MS);
});
byId<HTMLSelectElement>('category').addEventListener('change', (event) => {
  state = { ...state, category: (event.target as HTMLSelectElement).value, offset: 0 };
  writeState(state, 'push');
  void list.load(state).catch(needsToken);
});
byId('filters').addEventListener('submit', (event) => event.preventDefault());
byId('new-term').addEventListener('click', () => void form.add());
byId('token-button').addEventListener(
  'click',
  () => void askForToken('Enter a token to use on this page.'),
);
window.addEventListener('popstate', () => {
  state = readState();
  void render();
});

setUpDownloads(() => list.view);
setUpImport(() => void list.reload().catch(needsToken));
void render().catch((error) => {
  byId('list-status').textContent =
    error instanceof ApiError ? error.message : 'The page could not start. Reload it.';
});
