import './styles.css';
import { ApiError, TokenNeeded, token, type WriteAccess, writeAccess } from './api.ts';
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
  moved(view, how) {
    state = { ...state, ...view };
    writeState(state, how);
    // A letter clears the search; never rewrite what someone is typing.
    const search = byId<HTMLInputElement>('q');
    if (document.activeElement !== search) search.value = state.q;
  },
  linkTo,
});

/**
 * A change that may need a token: when the person cancels the token prompt, the page says
 * the change was not saved, in the open form or in the header.
 */
async function write(change: () => Promise<void>): Promise<boolean> {
  byId('write-status').textContent = '';
  const done = await withToken(change);
  if (!done) {
    const form = byId<HTMLDialogElement>('term-dialog');
    const words = 'Not saved: changing this glossary needs a token, and none was given.';
    if (form.open) byId('form-error').textContent = `${words} Your text is still here.`;
    else byId('write-status').textContent = words;
  }
  return done;
}

const ACCESS_NOTES: Record<WriteAccess, string> = {
  open: '',
  'token-needed': 'Changes here need a token: the page asks for yours once, when you first save.',
  'read-only': 'Your token may only read: saving a change asks for one that may write.',
  'with-token': 'Changes are saved with your token.',
};

/** Says up front, near the edit controls, whether changes need a token. */
async function noteWriteAccess(): Promise<void> {
  const note = byId('write-access');
  try {
    const text = ACCESS_NOTES[await writeAccess()];
    note.textContent = text;
    note.hidden = text === '';
  } catch {
    note.hidden = true;
  }
}

const handlers: ViewHandlers = {
  write,
  edit: (term, etag) => form.edit(term, etag),
  changed(id) {
    void list.reload().catch(needsToken);
    // The button pressed (Delete, a restore) is gone with the old panel: the focus goes to the
    // panel that replaces it, not to the page's start.
    void showTerm(id, state.q, handlers, true);
  },
  linkTo,
  select: (id) => select(id),
  confirm: confirmDelete,
};

const form = setUpTermForm({
  write,
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
    if (onPhone()) {
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

const onPhone = () => window.matchMedia('(max-width: 47.99rem)').matches;

let timer: number | undefined;
function search(q: string): Promise<void> {
  window.clearTimeout(timer);
  timer = undefined;
  state = { ...state, q, from: '', offset: 0 };
  writeState(state, 'replace');
  return list.load(state).catch(needsToken);
}
byId<HTMLInputElement>('q').addEventListener('input', (event) => {
  window.clearTimeout(timer);
  const q = (event.target as HTMLInputElement).value;
  timer = window.setTimeout(() => void search(q), SEARCH_DELAY_MS);
});
// Enter searches at once (no pause) and moves to the first result.
byId<HTMLInputElement>('q').addEventListener('keydown', async (event) => {
  if (event.key !== 'Enter' || event.isComposing) return;
  event.preventDefault();
  await search((event.target as HTMLInputElement).value);
  list.firstLink?.focus();
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

setUpDownloads(() => list.shown);
setUpImport(write, () => void list.reload().catch(needsToken));
token.onChange(() => void noteWriteAccess());
void noteWriteAccess();
void render()
  .then(() => {
    // A shared link to a term, on a phone: the term sits below the list, so scroll to it.
    if (state.term !== null && onPhone()) byId('detail').scrollIntoView({ block: 'start' });
  })
  .catch((error) => {
    byId('list-status').textContent =
      error instanceof ApiError ? error.message : 'The page could not start. Reload it.';
  });
