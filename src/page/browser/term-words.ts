import {
  CATEGORIES,
  MAX_DEFINITION_LENGTH,
  MAX_ID,
  MAX_OTHER_NAMES,
  MAX_SEE_ALSO,
  MAX_TERM_LENGTH,
} from '../../glossary/term.ts';

const count = new Intl.NumberFormat('en');

/**
 * What the service says of a field, in the words the term form uses for people ("Give the
 * term a name."). The import shows these beside each refused row; the service's own sentence
 * stays for what has no plainer words.
 */
const WORDS: Record<string, { missing: string; invalid: string }> = {
  id: {
    missing: 'Give the term an ID: a whole number.',
    invalid: `An ID is a whole number between ${count.format(-MAX_ID)} and ${count.format(MAX_ID)}.`,
  },
  term: {
    missing: 'Give the term a name.',
    invalid: `A name has at most ${MAX_TERM_LENGTH} characters.`,
  },
  definition: {
    missing: 'Write a definition.',
    invalid: `A definition has at most ${count.format(MAX_DEFINITION_LENGTH)} characters.`,
  },
  category: {
    missing: `Choose a category: ${CATEGORIES.join(', ')}.`,
    invalid: `Choose a category: ${CATEGORIES.join(', ')}.`,
  },
  see_also: {
    missing: 'See also takes IDs: whole numbers.',
    invalid: 'See also takes IDs: whole numbers.',
  },
  aliases: {
    missing: 'Aliases are a list of names.',
    invalid: `A term has at most ${MAX_OTHER_NAMES} aliases, each at most ${MAX_TERM_LENGTH} characters.`,
  },
  avoid: {
    missing: 'Names to avoid are a list of names.',
    invalid: `A term has at most ${MAX_OTHER_NAMES} names to avoid, each at most ${MAX_TERM_LENGTH} characters.`,
  },
};

/** A bulk item's `detail` of one fault: `avoid.0: 'web hook' is the name of term 42.` */
const ITEM_FAULT = /^([a-z_]+)(?:\.(\d+))?: (.+)$/s;

/** A refused bulk item's `detail`, in words for people. */
export function itemWords(detail: string): string {
  const taken = /^Term with ID (-?\d+) already exists\.$/.exec(detail);
  if (taken) return `ID ${taken[1]} is taken by a term of the glossary.`;
  const twice = /^Duplicate ID (-?\d+) in batch\.$/.exec(detail);
  if (twice) return `ID ${twice[1]} is used by an earlier row of the file.`;
  if (/^value is not a valid dict/.test(detail)) {
    return 'This is not a term: an object with id, term, definition and category.';
  }
  const match = ITEM_FAULT.exec(detail);
  const field = match?.[1];
  const message = match?.[3] ?? '';
  const words = field ? WORDS[field] : undefined;
  if (!match || !words) return `The glossary refused this: ${detail}`;
  // The rule on names speaks for itself: "'K8s' is already an alias of this term."
  if (/^'.*' is /s.test(message)) {
    const index =
      match[2] === undefined
        ? ''
        : `${field === 'avoid' ? 'Avoid' : 'Also called'}, name ${Number(match[2]) + 1}: `;
    return `${index}${/[.!?]$/.test(message) ? message : `${message}.`}`;
  }
  if (field === 'see_also' && /at most/.test(message)) {
    return `A term can point to at most ${MAX_SEE_ALSO} others.`;
  }
  const missing = /field required|at least 1 character/.test(message);
  return missing ? words.missing : words.invalid;
}
