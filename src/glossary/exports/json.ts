import type { Term } from '../term.ts';

/** JSON: the same array GET /terms gives, one term a line; importing it rebuilds the glossary. */
export const json = {
  start: () => '[',
  term: (term: Term, first: boolean) => `${first ? '\n' : ',\n'}  ${JSON.stringify(term)}`,
  end: (empty: boolean) => (empty ? ']\n' : '\n]\n'),
};
