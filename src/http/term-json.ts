import type { Term } from '../glossary/term.ts';

/** One term's JSON, the five fields in the contract's order; a hot path for long lists. */
export function serializeTerm(term: Term): string {
  return `{"id":${term.id},"term":${JSON.stringify(term.term)},"definition":${JSON.stringify(term.definition)},"category":"${term.category}","see_also":[${term.see_also.join(',')}]}`;
}

export function serializeTerms(terms: readonly Term[]): string {
  let json = '';
  for (let i = 0; i < terms.length; i += 1) {
    json += i === 0 ? serializeTerm(terms[i] as Term) : `,${serializeTerm(terms[i] as Term)}`;
  }
  return json;
}
