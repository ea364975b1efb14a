import type { Term } from './api.ts';
import { h } from './dom.ts';
import { definitionDiff, nameCache } from './term-changes.ts';

/**
 * An edit that met someone else's save (a 412): their version beside the draft, field by
 * field, each that differs with "Keep mine" / "Take theirs". A field only they changed starts on
 * theirs, so saving never undoes their change unasked; a field the draft changed starts on mine.
 */

export type Draft = Pick<Term, 'term' | 'definition' | 'category' | 'see_also'> & {
  aliases: string[];
  avoid: string[];
};
type Key = keyof Draft;

const LABELS: Record<Key, string> = {
  term: 'Name',
  definition: 'Definition',
  category: 'Category',
  see_also: 'See also',
  aliases: 'Also called',
  avoid: 'Avoid',
};
const KEYS = Object.keys(LABELS) as Key[];

export function draftOf(term: Term): Draft {
  return {
    term: term.term,
    definition: term.definition,
    category: term.category,
    see_also: term.see_also,
    aliases: term.aliases ?? [],
    avoid: term.avoid ?? [],
  };
}

const same = (a: Draft[Key], b: Draft[Key]) => JSON.stringify(a) === JSON.stringify(b);

/** The fields in which two drafts differ. */
export function differing(a: Draft, b: Draft): Key[] {
  return KEYS.filter((key) => !same(a[key], b[key]));
}

export interface ConflictChoice {
  /** Puts a value into the form's field. */
  apply<K extends Key>(key: K, value: Draft[K]): void;
}

let made = 0;

/**
 * The comparison, for the form to show above its fields. `base` is the term as the draft
 * started from it; `mine` the draft; `theirs` the term as it is now.
 */
export function conflictView(
  base: Draft,
  mine: Draft,
  theirs: Draft,
  form: ConflictChoice,
): HTMLElement {
  const keys = differing(mine, theirs);
  const nameOf = nameCache();
  const section = h('section', {
    class: 'conflict',
    'aria-labelledby': `conflict-title-${++made}`,
    tabindex: '-1',
  });
  section.append(
    h('h3', { id: `conflict-title-${made}` }, 'Someone else saved this term while you edited it'),
    h(
      'p',
      {},
      keys.length === 0
        ? 'They made the same changes as you. Save again to keep them.'
        : 'Their version is shown beside yours. Choose for each field, then save again: what you save replaces their version.',
    ),
  );
  for (const key of keys) {
    const label = LABELS[key];
    const who = same(mine[key], base[key])
      ? 'They changed this.'
      : same(theirs[key], base[key])
        ? 'You changed this.'
        : 'You both changed this.';
    const takeTheirs = same(mine[key], base[key]);
    const group = `conflict-${made}-${key}`;
    const radio = (value: 'mine' | 'theirs', text: string) => {
      const input = h('input', { type: 'radio', name: group, value });
      input.checked = (value === 'theirs') === takeTheirs;
      input.addEventListener('change', () => {
        if (input.checked) form.apply(key, value === 'theirs' ? theirs[key] : mine[key]);
      });
      return h('label', { class: 'choice' }, input, ` ${text}`);
    };
    const yours = h('div', { class: 'version' }, h('h4', {}, 'Yours'));
    const their = h('div', { class: 'version' }, h('h4', {}, 'Theirs'));
    void shown(key, mine[key], nameOf).then((node) => yours.append(node));
    if (key === 'definition') {
      their.append(
        definitionDiff(mine.definition, theirs.definition),
        h('p', { class: 'hint' }, 'Marked against yours.'),
      );
    } else void shown(key, theirs[key], nameOf).then((node) => their.append(node));
    section.append(
      h(
        'fieldset',
        { class: 'conflict-field' },
        h('legend', {}, label),
        h('p', { class: 'hint' }, who),
        h('div', { class: 'versions' }, yours, their),
        h(
          'div',
          { class: 'button-row' },
          radio('mine', 'Keep mine'),
          radio('theirs', 'Take theirs'),
        ),
      ),
    );
    if (takeTheirs) form.apply(key, theirs[key]);
  }
  return section;
}

/** A term deleted meanwhile: create it again with the draft, or let the draft go. */
export function deletedView(name: string, again: () => void, drop: () => void): HTMLElement {
  const create = h('button', { type: 'button' }, 'Create it again');
  const discard = h('button', { type: 'button', class: 'quiet' }, 'Discard my changes');
  create.addEventListener('click', again);
  discard.addEventListener('click', drop);
  return h(
    'section',
    { class: 'conflict', 'aria-labelledby': `conflict-title-${++made}`, tabindex: '-1' },
    h('h3', { id: `conflict-title-${made}` }, 'Someone deleted this term while you edited it'),
    h(
      'p',
      {},
      `“${name}” is no longer in the glossary (its history keeps it). Create it again with your changes, or discard them.`,
    ),
    h('div', { class: 'button-row' }, create, discard),
  );
}

/** A field's value in words: lists one item a line, see-also terms by name. */
async function shown(
  key: Key,
  value: Draft[Key],
  nameOf: (id: number) => Promise<string | null>,
): Promise<Node> {
  if (key === 'see_also') {
    const names = await Promise.all(
      (value as number[]).map(async (id) => (await nameOf(id)) ?? `ID ${id} (no such term)`),
    );
    return names.length
      ? h('ul', {}, ...names.map((name) => h('li', {}, name)))
      : h('p', {}, '(none)');
  }
  if (Array.isArray(value)) {
    return value.length
      ? h('ul', {}, ...value.map((name) => h('li', {}, String(name))))
      : h('p', {}, '(none)');
  }
  return h('p', { class: 'version-text' }, String(value));
}
