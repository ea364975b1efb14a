import { getTerm, type Term } from './api.ts';
import { h } from './dom.ts';
import { wordDiff } from './word-diff.ts';

/**
 * What one revision changed, field by field (a history entry against the one before it). The
 * marks are words as well as looks: `<ins>` and `<del>` carry "added:" and "removed:" for screen
 * readers (which announce neither element), and underline and strike-through, not colour alone.
 */

/** A term's name by id, asked once per history shown; null when no term has the id now. */
export type NameOf = (id: number) => Promise<string | null>;

export function nameCache(): NameOf {
  const names = new Map<number, Promise<string | null>>();
  return (id) => {
    let name = names.get(id);
    if (!name) {
      name = getTerm(id).then(
        (found) => found?.term.term ?? null,
        () => null,
      );
      names.set(id, name);
    }
    return name;
  };
}

const hidden = (text: string) => h('span', { class: 'visually-hidden' }, text);

export function added(text: string): HTMLElement {
  return h('ins', {}, hidden('added: '), text);
}

export function removed(text: string): HTMLElement {
  return h('del', {}, hidden('removed: '), text);
}

/** The definition's words, the kept ones plain, the others marked. */
export function definitionDiff(before: string, after: string): HTMLElement {
  const text = h('p', { class: 'diff-text' });
  for (const piece of wordDiff(before, after)) {
    text.append(
      piece.kind === 'same'
        ? piece.text
        : piece.kind === 'added'
          ? added(piece.text)
          : removed(piece.text),
    );
  }
  return text;
}

/** A list's items added and removed (other names, see-also names), in the list's order. */
function listDiff(before: string[], after: string[]): HTMLElement {
  const gone = before.filter((item) => !after.includes(item));
  const come = after.filter((item) => !before.includes(item));
  const parts: (Node | string)[] = [];
  for (const item of come) parts.push(parts.length ? ', ' : '', added(item));
  for (const item of gone) parts.push(parts.length ? ', ' : '', removed(item));
  if (parts.length === 0) parts.push('the same, in another order');
  return h('span', {}, ...parts);
}

async function seeAlsoNames(ids: number[], nameOf: NameOf): Promise<string[]> {
  return Promise.all(ids.map(async (id) => (await nameOf(id)) ?? `ID ${id} (no such term)`));
}

const sameList = (a: readonly unknown[] = [], b: readonly unknown[] = []) =>
  a.length === b.length && a.every((item, i) => item === b[i]);

/**
 * The fields that differ from `before` to `after`, as a description list; a sentence when none
 * does (a restore of the state it already had).
 */
export async function termChanges(before: Term, after: Term, nameOf: NameOf): Promise<HTMLElement> {
  const rows: HTMLElement[] = [];
  const row = (label: string, value: Node) => rows.push(h('dt', {}, label), h('dd', {}, value));
  if (before.term !== after.term) {
    row('Name', h('span', {}, removed(before.term), ' → ', added(after.term)));
  }
  if (before.definition !== after.definition) {
    row('Definition', definitionDiff(before.definition, after.definition));
  }
  if (before.category !== after.category) {
    row('Category', h('span', {}, removed(before.category), ' → ', added(after.category)));
  }
  if (!sameList(before.see_also, after.see_also)) {
    const [was, now] = await Promise.all([
      seeAlsoNames(before.see_also, nameOf),
      seeAlsoNames(after.see_also, nameOf),
    ]);
    row('See also', listDiff(was, now));
  }
  if (!sameList(before.aliases, after.aliases)) {
    row('Also called', listDiff(before.aliases ?? [], after.aliases ?? []));
  }
  if (!sameList(before.avoid, after.avoid)) {
    row('Avoid', listDiff(before.avoid ?? [], after.avoid ?? []));
  }
  if (rows.length === 0) return h('p', { class: 'hint' }, 'No field changed.');
  return h('dl', { class: 'changes' }, ...rows);
}
