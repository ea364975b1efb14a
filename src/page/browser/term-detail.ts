import { ApiError, getTerm, type Term } from './api.ts';
import { byId, h, termLink } from './dom.ts';

/** Bumped by every call, so a slow answer for an earlier selection never shows up late. */
let latest = 0;

/** Shows one term; its `see_also` ids are fetched and shown by name, or as unresolved. */
export async function showTerm(id: number | null, focus: boolean): Promise<void> {
  const call = ++latest;
  const panel = byId('detail');
  const title = byId('detail-title');
  const body = byId('detail-body');
  if (id === null) {
    panel.removeAttribute('aria-busy');
    title.textContent = 'Select a term';
    body.replaceChildren(
      h('p', { class: 'hint' }, 'Choose a term in the list to read its definition.'),
    );
    return;
  }
  panel.setAttribute('aria-busy', 'true');
  try {
    const term = await getTerm(id);
    const content = term === null ? null : await describe(term);
    if (call !== latest) return;
    if (term === null || content === null) {
      title.textContent = 'Term not found';
      body.replaceChildren(h('p', {}, `No term has the ID ${id}.`));
    } else {
      title.textContent = term.term;
      body.replaceChildren(...content);
    }
  } catch (error) {
    if (call !== latest) return;
    title.textContent = 'Term unavailable';
    body.replaceChildren(
      h('p', {}, error instanceof ApiError ? error.message : 'The term could not be loaded.'),
    );
  } finally {
    if (call === latest) panel.removeAttribute('aria-busy');
  }
  if (focus && call === latest) panel.focus();
}

async function describe(term: Term): Promise<Node[]> {
  const facts = h(
    'dl',
    { class: 'facts' },
    h('dt', {}, 'Category'),
    h('dd', { class: 'category' }, term.category),
    h('dt', {}, 'ID'),
    h('dd', {}, String(term.id)),
  );
  const nodes: Node[] = [h('p', { class: 'definition' }, term.definition), facts];
  if (term.see_also.length > 0) {
    const related = await Promise.all(term.see_also.map((id) => relatedItem(id)));
    nodes.push(h('h3', {}, 'See also'), h('ul', { class: 'see-also' }, ...related));
  }
  return nodes;
}

async function relatedItem(id: number): Promise<HTMLLIElement> {
  try {
    const term = await getTerm(id);
    if (term) return h('li', {}, termLink(id, term.term));
    return h('li', { class: 'unresolved' }, `ID ${id} (no such term)`);
  } catch {
    return h('li', { class: 'unresolved' }, `ID ${id} (could not be loaded)`);
  }
}
