import { nameFold } from '../../glossary/other-names.ts';
import { findTerms, type Term } from './api.ts';
import { ask } from './dialogs.ts';
import { h } from './dom.ts';

/**
 * A new term whose name another term already has (names folded as the service folds them:
 * case, accents and runs of spaces do not count): asks first, with a link to the other, which
 * opens in a new tab so the draft stays. The service would accept the duplicate; the page asks.
 * Resolves true to go on.
 */
export async function sameNameAllowed(
  name: string,
  id: number,
  linkTo: (id: number) => string,
): Promise<boolean> {
  const fold = nameFold(name);
  // The search ranks an exact name first; ten covers names that share their words.
  const found = await findTerms(name, 10).catch(() => [] as Term[]);
  const other = found.find((term) => term.id !== id && nameFold(term.term) === fold);
  if (!other) return true;
  return ask({
    title: 'This name is taken',
    text: [
      h(
        'p',
        {},
        'Another term already has this name: ',
        h('a', { href: linkTo(other.id), target: '_blank' }, other.term),
        ` (ID ${other.id}, ${other.category}; the link opens in a new tab). Two terms with one name confuse readers: perhaps edit that one instead.`,
      ),
    ],
    yes: 'Add it anyway',
    no: 'Go back to the form',
  });
}
