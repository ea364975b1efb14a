import './styles.css';
import { setUpAddForm } from './add-term-form.ts';
import { byId } from './dom.ts';
import { setUpImport } from './import-panel.ts';
import { showTerm } from './term-detail.ts';
import { setUpTermList } from './term-list.ts';

/** `#/terms/42` selects term 42; the fragment is the state, so a reload or a shared link keeps it. */
function selectedId(): number | null {
  const match = /^#\/terms\/(-?\d+)$/.exec(window.location.hash);
  return match?.[1] ? Number(match[1]) : null;
}

const list = setUpTermList();
setUpAddForm(() => void list.reload());
setUpImport(() => void list.reload());

function route(focus: boolean): Promise<void> {
  const id = selectedId();
  list.markSelected(id);
  return showTerm(id, focus);
}

// Other fragments (the skip link's `#terms`) are plain in-page jumps, not routes.
window.addEventListener('hashchange', () => {
  const hash = window.location.hash;
  if (hash === '' || hash.startsWith('#/')) void route(true);
});
void list.reload();
// A deep link opens on its term: on a phone the detail sits below the list, so bring it into
// view (without taking the focus, which stays at the start of the page).
void route(false).then(() => {
  if (selectedId() !== null) byId('detail').scrollIntoView({ block: 'nearest' });
});
