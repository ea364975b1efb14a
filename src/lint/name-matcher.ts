import { casedAs, pluralOf } from './english.ts';

/**
 * Finds the names to avoid in a file's prose in one pass: a trie over every form of every name
 * (each name to avoid, each name and alias, and each one's plural), walked from each word's
 * start. Matches are whole words, so a match can only begin where a word begins and no failure
 * links are needed: at each word start the walk goes as far as the text follows the trie and
 * keeps the longest form that ends at a word's end. Names and aliases are forms too, so "web
 * hook handler", a name, is never read as "web hook", a name to avoid, followed by a word.
 * Before walking, the word's hash is looked up in a table of the forms' first words: most words
 * of prose begin no form and cost that one look-up.
 *
 * Case is ignored (compared code unit by code unit, lower-cased); a space in a name matches any
 * run of white space in the text, line breaks included.
 */

/** A term as the matcher needs it. */
export interface GlossaryTerm {
  id: number;
  term: string;
  aliases?: readonly string[] | undefined;
  avoid?: readonly string[] | undefined;
}

/** What a form stands for. `use` undefined: a name or alias, found and left alone. */
interface Form {
  use: string | undefined;
  /** The form as the glossary writes it (for the replacement's case). */
  written: string;
  term: number;
  /** 3 a name to avoid, 2 a name or alias, 1 a name to avoid's plural, 0 a name's plural. */
  rank: number;
}

/** A name to avoid found at `[start, end)` of the text. */
export interface NameMatch {
  start: number;
  end: number;
  /** The replacement, cased and numbered as the text was. */
  use: string;
  term: number;
}

const SPACE = 32;
const TABLE_BITS = 20;
const TABLE_MASK = (1 << TABLE_BITS) - 1;

/** Per UTF-16 code unit: 1 a letter, digit or combining mark; 2 white space; 0 anything else. */
const CLASS = new Uint8Array(65536);
/** Per UTF-16 code unit: its lower case when that is one code unit, else itself. */
const LOWER = new Uint16Array(65536);
{
  const word = /[\p{L}\p{N}\p{M}]/u;
  for (let code = 0; code < 65536; code++) {
    const char = String.fromCharCode(code);
    const isSurrogate = code >= 0xd800 && code <= 0xdfff;
    if (!isSurrogate && word.test(char)) CLASS[code] = 1;
    const lower = char.toLowerCase();
    LOWER[code] = lower.length === 1 ? lower.charCodeAt(0) : code;
  }
  for (const space of [9, 10, 11, 12, 13, 32, 0xa0, 0x2007, 0x202f]) CLASS[space] = 2;
}

/** FNV-1a over lower-cased code units: the key of a first word in the table. */
function hashStep(hash: number, code: number): number {
  return Math.imul(hash ^ code, 16777619) >>> 0;
}
const HASH_START = 2166136261;

/**
 * The trie's edges, (node, code unit) → child node, in an open-addressing hash table of typed
 * arrays: building 60,000 forms' edges in a `Map` keyed by `node * 65536 + code` took a third
 * of a second, most of it in boxing keys beyond small integers; this takes a tenth of that.
 */
class Edges {
  private parents = new Int32Array(1 << 16).fill(-1);
  private codes = new Uint16Array(1 << 16);
  private children = new Int32Array(1 << 16);
  private count = 0;

  get(node: number, code: number): number | undefined {
    const mask = this.parents.length - 1;
    for (let slot = slotOf(node, code) & mask; ; slot = (slot + 1) & mask) {
      const parent = this.parents[slot] as number;
      if (parent === -1) return undefined;
      if (parent === node && this.codes[slot] === code) return this.children[slot];
    }
  }

  set(node: number, code: number, child: number): void {
    if ((this.count + 1) * 2 > this.parents.length) this.grow();
    this.count++;
    this.place(node, code, child);
  }

  private place(node: number, code: number, child: number): void {
    const mask = this.parents.length - 1;
    let slot = slotOf(node, code) & mask;
    while (this.parents[slot] !== -1) slot = (slot + 1) & mask;
    this.parents[slot] = node;
    this.codes[slot] = code;
    this.children[slot] = child;
  }

  private grow(): void {
    const { parents, codes, children } = this;
    this.parents = new Int32Array(parents.length * 2).fill(-1);
    this.codes = new Uint16Array(parents.length * 2);
    this.children = new Int32Array(parents.length * 2);
    for (let slot = 0; slot < parents.length; slot++) {
      const parent = parents[slot] as number;
      if (parent !== -1) this.place(parent, codes[slot] as number, children[slot] as number);
    }
  }
}

function slotOf(node: number, code: number): number {
  return Math.imul(node ^ Math.imul(code, 0x9e3779b1), 0x85ebca77) >>> 7;
}

export class NameMatcher {
  /** Trie edges; node 0 is the root. */
  private readonly edges = new Edges();
  private readonly forms: (Form | undefined)[] = [undefined];
  /** Whether some form's first word may hash to this slot. */
  private readonly firstWords = new Uint8Array(1 << TABLE_BITS);
  /** Forms that begin with a sign rather than a letter (".NET"), walked at every sign. */
  private readonly signStarts = new Set<number>();

  constructor(terms: Iterable<GlossaryTerm>) {
    for (const term of terms) {
      for (const name of [term.term, ...(term.aliases ?? [])]) {
        this.add(name, { use: undefined, written: name, term: term.id, rank: 2 });
        const plural = pluralOf(name);
        if (plural) this.add(plural, { use: undefined, written: plural, term: term.id, rank: 0 });
      }
      for (const avoided of term.avoid ?? []) {
        this.add(avoided, { use: term.term, written: avoided, term: term.id, rank: 3 });
        const plural = pluralOf(avoided);
        if (plural) {
          this.add(plural, {
            use: pluralOf(term.term) ?? term.term,
            written: plural,
            term: term.id,
            rank: 1,
          });
        }
      }
    }
  }

  private add(name: string, form: Form): void {
    const text = name.trim();
    if (text === '') return;
    let node = 0;
    let hash = HASH_START;
    let inFirstWord = true;
    let previousSpace = false;
    for (let i = 0; i < text.length; i++) {
      let code = text.charCodeAt(i);
      const kind = CLASS[code];
      if (kind === 2) {
        if (previousSpace) continue;
        previousSpace = true;
        code = SPACE;
      } else {
        previousSpace = false;
        code = LOWER[code] as number;
      }
      if (i === 0 && kind !== 1) this.signStarts.add(code);
      if (inFirstWord && kind === 1) hash = hashStep(hash, code);
      else inFirstWord = false;
      let child = this.edges.get(node, code);
      if (child === undefined) {
        child = this.forms.length;
        this.forms.push(undefined);
        this.edges.set(node, code, child);
      }
      node = child;
    }
    if (CLASS[text.charCodeAt(0)] === 1) this.firstWords[hash & TABLE_MASK] = 1;
    const existing = this.forms[node];
    // The higher rank wins; between equal ranks, the lower id (the first term) keeps it.
    if (existing === undefined || form.rank > existing.rank) this.forms[node] = form;
    else if (form.rank === existing.rank && form.term < existing.term) this.forms[node] = form;
  }

  /**
   * Every name to avoid in `text` (a mask: see markup/mask.ts), in order, none overlapping.
   * A code unit that is neither a word's nor white space (U+0000 included) ends a word.
   */
  find(text: string): NameMatch[] {
    const found: NameMatch[] = [];
    const length = text.length;
    let i = 0;
    while (i < length) {
      const code = text.charCodeAt(i);
      const kind = CLASS[code];
      if (kind !== 1) {
        if (
          kind === 0 &&
          this.signStarts.has(code) &&
          (i === 0 || CLASS[text.charCodeAt(i - 1)] !== 1)
        ) {
          const end = this.walk(text, i, found);
          if (end > i) {
            i = end;
            continue;
          }
        }
        i++;
        continue;
      }
      // A word starts at i: hash it, then walk the trie only if some form may start with it.
      let j = i;
      let hash = HASH_START;
      while (j < length) {
        const c = text.charCodeAt(j);
        if (CLASS[c] !== 1) break;
        hash = hashStep(hash, LOWER[c] as number);
        j++;
      }
      if (this.firstWords[hash & TABLE_MASK] === 1) {
        const end = this.walk(text, i, found);
        if (end > j) j = end;
      }
      i = j;
    }
    return found;
  }

  /** Walks the trie from `start`; records the longest form ending at a word's end. */
  private walk(text: string, start: number, found: NameMatch[]): number {
    const length = text.length;
    let node = 0;
    let best = -1;
    let bestNode = 0;
    let i = start;
    while (i < length) {
      const code = text.charCodeAt(i);
      const kind = CLASS[code];
      let next: number | undefined;
      let after = i + 1;
      if (kind === 2) {
        next = this.edges.get(node, SPACE);
        while (after < length && CLASS[text.charCodeAt(after)] === 2) after++;
      } else {
        next = this.edges.get(node, LOWER[code] as number);
      }
      if (next === undefined) break;
      node = next;
      i = after;
      if (this.forms[node] !== undefined && kind !== 2) {
        const atWordEnd = i >= length || kind !== 1 || CLASS[text.charCodeAt(i)] !== 1;
        if (atWordEnd) {
          best = i;
          bestNode = node;
        }
      }
    }
    if (best < 0) return start;
    const form = this.forms[bestNode] as Form;
    if (form.use !== undefined) {
      const written = text.slice(start, best);
      const use = casedAs(form.use, written, form.written);
      // A name to avoid that differs from the name only in case ("Github" for "GitHub") is
      // found in any case but the name's own.
      if (use !== written) found.push({ start, end: best, use, term: form.term });
    }
    return best;
  }
}
