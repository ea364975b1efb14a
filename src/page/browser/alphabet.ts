import { foldCase } from '../../glossary/fold-case.ts';
import { h } from './dom.ts';

/**
 * The letter groups of the A–Z jump. The service sorts folded names by code point and offers
 * `from=` (names at or after a place), not "names starting with": so a letter's terms are the
 * names from its start up to the next group's start, and its count is the difference of the
 * two `X-Total-Count`s. `#` holds what sorts before A (digits, most symbols), `Other` what
 * sorts after Z (accented and other letters, `{`, `~`).
 */
export interface LetterGroup {
  /** The group's value of `from` in the page's address. */
  key: string;
  /** What the button shows. */
  label: string;
  /** The button's name and the group's name in the status line. */
  name: string;
  /** The `from` of the group's first name ('' for the very start). */
  start: string;
  /** The `from` of the next group, or null for the last one. */
  end: string | null;
}

/** After Z in the order names sort in: names that start with accented and other letters. */
const AFTER_Z = '{';
const LETTERS = 'abcdefghijklmnopqrstuvwxyz'.split('');

export const GROUPS: readonly LetterGroup[] = [
  { key: '#', label: '#', name: 'Digits and symbols', start: '', end: 'a' },
  ...LETTERS.map((letter, index) => ({
    key: letter,
    label: letter.toUpperCase(),
    name: `Letter ${letter.toUpperCase()}`,
    start: letter,
    end: LETTERS[index + 1] ?? AFTER_Z,
  })),
  { key: AFTER_Z, label: 'Other', name: 'Other letters', start: AFTER_Z, end: null },
];

/** The group a `from` of the address names, or null (no letter, or a place such as `sch`). */
export function groupOf(from: string): LetterGroup | null {
  return GROUPS.find((group) => group.key === from) ?? null;
}

/** The group a name belongs to, by its first character folded as the service sorts it. */
export function groupOfName(name: string): LetterGroup {
  const first = [...foldCase(name)][0] ?? '';
  const key = first < 'a' ? '#' : first <= 'z' ? first : AFTER_Z;
  return groupOf(key) as LetterGroup;
}

/**
 * The buttons, as one Tab stop (a roving tabindex): Tab reaches the current letter (or the
 * first), the arrow keys, Home and End move between letters, Enter and Space choose one.
 */
export function letterButtons(
  container: HTMLElement,
  choose: (group: LetterGroup) => void,
): { mark(current: string | null): void } {
  const buttons = GROUPS.map((group) => {
    const button = h(
      'button',
      { type: 'button', 'data-from': group.key, 'aria-label': group.name, tabindex: '-1' },
      group.label,
    );
    button.addEventListener('click', () => choose(group));
    button.addEventListener('focus', () => rove(button));
    return button;
  });
  // A toolbar tells a screen reader that the arrow keys move inside it (one Tab stop).
  container.replaceChildren(
    h('div', { role: 'toolbar', 'aria-label': 'Letters', class: 'letters' }, ...buttons),
  );
  const rove = (to: HTMLButtonElement) => {
    for (const button of buttons) button.tabIndex = button === to ? 0 : -1;
  };
  rove(buttons[1] as HTMLButtonElement);

  container.addEventListener('keydown', (event) => {
    const at = buttons.indexOf(event.target as HTMLButtonElement);
    if (at === -1) return;
    const last = buttons.length - 1;
    const to = {
      ArrowRight: at === last ? 0 : at + 1,
      ArrowDown: at === last ? 0 : at + 1,
      ArrowLeft: at === 0 ? last : at - 1,
      ArrowUp: at === 0 ? last : at - 1,
      Home: 0,
      End: last,
    }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    buttons[to]?.focus();
  });

  return {
    mark(current: string | null): void {
      let marked: HTMLButtonElement | undefined;
      for (const button of buttons) {
        if (button.dataset.from === current) {
          button.setAttribute('aria-current', 'true');
          marked = button;
        } else button.removeAttribute('aria-current');
      }
      // Tab comes back to the chosen letter, unless the focus is inside the letters now.
      if (marked && !container.contains(document.activeElement)) rove(marked);
    },
  };
}
