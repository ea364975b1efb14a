import { editDistance, typosAllowed, wordsOf } from '../../glossary/words.ts';
import { h } from './dom.ts';

/**
 * Text from the glossary as nodes: `http(s)://` links become links, words the search found are
 * marked, and nothing else is interpreted (text nodes only, never HTML).
 */

const LINK = /https?:\/\/[^\s<>"'`]+/g;
const TOKEN = /[\p{L}\p{N}]+/gu;
/** Punctuation that ends a sentence rather than the address. */
const TRAILING = /[.,;:!?)\]]+$/;

/** Whether a word of a text is one the query finds (as the service matches them). */
export function matcher(q: string): (word: string) => boolean {
  const query = wordsOf(q);
  if (query.length === 0) return () => false;
  const last = query.length - 1;
  return (token) =>
    wordsOf(token).some((word) =>
      query.some((wanted, i) => {
        if (word === wanted || (i === last && word.startsWith(wanted))) return true;
        const allowed = typosAllowed(wanted);
        return allowed > 0 && editDistance(wanted, word, allowed) <= allowed;
      }),
    );
}

/** Text with the found words marked and nothing else (for inside a link, or an excerpt). */
export function marked(text: string, finds: (word: string) => boolean): Node[] {
  const nodes: Node[] = [];
  let at = 0;
  for (const match of text.matchAll(TOKEN)) {
    if (!finds(match[0])) continue;
    const start = match.index ?? 0;
    if (start > at) nodes.push(document.createTextNode(text.slice(at, start)));
    nodes.push(h('mark', {}, match[0]));
    at = start + match[0].length;
  }
  if (at < text.length) nodes.push(document.createTextNode(text.slice(at)));
  return nodes;
}

export function richText(text: string, finds: (word: string) => boolean = () => false): Node[] {
  const nodes: Node[] = [];
  let at = 0;
  for (const match of text.matchAll(LINK)) {
    const start = match.index ?? 0;
    const address = match[0].replace(TRAILING, '');
    if (start > at) nodes.push(...marked(text.slice(at, start), finds));
    nodes.push(h('a', { href: address, rel: 'noopener noreferrer', target: '_blank' }, address));
    at = start + address.length;
  }
  if (at < text.length) nodes.push(...marked(text.slice(at), finds));
  return nodes;
}
