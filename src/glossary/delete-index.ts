/**
 * The words one edit from a query word, found without reading the others (a SymSpell-style
 * deletion index). Two words one edit apart (as `editDistance` counts: an insertion, a
 * deletion, a substitution or a swap of neighbours) become the same string once at most one
 * code point is deleted from each: a substitution or a swap deletes on both sides, an
 * insertion or a deletion on one. So each word is filed under itself and each of its
 * one-deletions, and a look-up reads only the words filed under the query word or one of its
 * one-deletions: a superset of the answer, which the caller checks with the exact distance.
 *
 * Memory matters more than a few false candidates (a glossary of a million terms keeps every
 * word of them): a key is not kept as a string but as a 32-bit hash, in typed arrays (a hash,
 * the next entry of its chain, and the word's number: about 15 bytes an entry with the slots),
 * so two different strings with the same hash only add a candidate the distance then refuses.
 * Each word is filed under its distinct hashes once, so removing it unlinks those entries;
 * freed entries are reused.
 */
/** Entries a slot holds on average, at most: chains are short, and their reads cheap. */
const LOAD = 1.5;

export class DeleteIndex {
  private slots = new Int32Array(1 << 10).fill(-1);
  private hashes = new Int32Array(1 << 10);
  private next = new Int32Array(1 << 10);
  /** Each entry's word, by its number in `words`; -1 for a freed entry. */
  private owners = new Int32Array(1 << 10);
  /** The words filed, by number; a removed word's number is given to the next added. */
  private readonly words: (string | undefined)[] = [];
  private readonly freeNumbers: number[] = [];
  /** Entries in use, and the head of the chain of freed ones (through `next`). */
  private used = 0;
  private allocated = 0;
  private free = -1;

  /** Files `word` (its code points) under its keys. */
  add(word: string, points: ArrayLike<number>): void {
    const number = this.freeNumbers.pop() ?? this.words.length;
    this.words[number] = word;
    const count = keysOf(points);
    for (let k = 0; k < count; k += 1) this.link(KEYS[k] as number, number);
  }

  remove(word: string, points: ArrayLike<number>): void {
    const count = keysOf(points);
    let number = -1;
    for (let k = 0; k < count; k += 1) number = this.unlink(KEYS[k] as number, word);
    if (number < 0) return;
    this.words[number] = undefined;
    this.freeNumbers.push(number);
  }

  /** Each word filed under a key of `points`, once; maybe a few more (equal hashes). */
  candidates(points: ArrayLike<number>): Set<string> {
    const found = new Set<string>();
    const mask = this.slots.length - 1;
    const count = keysOf(points);
    for (let k = 0; k < count; k += 1) {
      const hash = KEYS[k] as number;
      for (let entry = this.slots[hash & mask] as number; entry >= 0; ) {
        if (this.hashes[entry] === hash) {
          found.add(this.words[this.owners[entry] as number] as string);
        }
        entry = this.next[entry] as number;
      }
    }
    return found;
  }

  private link(hash: number, number: number): void {
    if (this.used + 1 > this.slots.length * LOAD) this.grow();
    let entry = this.free;
    if (entry >= 0) this.free = this.next[entry] as number;
    else {
      if (this.allocated === this.hashes.length) this.enlargeEntries();
      entry = this.allocated++;
    }
    const slot = hash & (this.slots.length - 1);
    this.hashes[entry] = hash;
    this.owners[entry] = number;
    this.next[entry] = this.slots[slot] as number;
    this.slots[slot] = entry;
    this.used += 1;
  }

  /** Unlinks `word`'s entry under `hash`; answers the word's number (-1: none there). */
  private unlink(hash: number, word: string): number {
    const slot = hash & (this.slots.length - 1);
    let before = -1;
    for (let entry = this.slots[slot] as number; entry >= 0; entry = this.next[entry] as number) {
      const number = this.owners[entry] as number;
      if (this.hashes[entry] === hash && this.words[number] === word) {
        const after = this.next[entry] as number;
        if (before < 0) this.slots[slot] = after;
        else this.next[before] = after;
        this.owners[entry] = -1;
        this.next[entry] = this.free;
        this.free = entry;
        this.used -= 1;
        return number;
      }
      before = entry;
    }
    return -1;
  }

  private enlargeEntries(): void {
    const size = Math.ceil(this.hashes.length * 1.5);
    const hashes = new Int32Array(size);
    hashes.set(this.hashes);
    const next = new Int32Array(size);
    next.set(this.next);
    const owners = new Int32Array(size);
    owners.set(this.owners);
    this.hashes = hashes;
    this.next = next;
    this.owners = owners;
  }

  /** Twice the slots, every entry in use relinked by its hash. */
  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2).fill(-1);
    const mask = slots.length - 1;
    for (let entry = 0; entry < this.allocated; entry += 1) {
      if ((this.owners[entry] as number) < 0) continue;
      const slot = (this.hashes[entry] as number) & mask;
      this.next[entry] = slots[slot] as number;
      slots[slot] = entry;
    }
    // The freed entries' chain went through `next`: rebuild it.
    this.free = -1;
    for (let entry = this.allocated - 1; entry >= 0; entry -= 1) {
      if ((this.owners[entry] as number) >= 0) continue;
      this.next[entry] = this.free;
      this.free = entry;
    }
    this.slots = slots;
  }
}

const BASE = 0x01000193;

/** Where `keysOf` puts its keys, and the hashes of each start of the word. */
let KEYS = new Int32Array(16);
let HEADS = new Int32Array(17);
/** Powers of the hash's base, as far as a word filed or looked up needs. */
let POWERS = powersTo(16);

function powersTo(length: number): Int32Array {
  const powers = new Int32Array(length + 1);
  powers[0] = 1;
  for (let i = 1; i <= length; i += 1) powers[i] = Math.imul(powers[i - 1] as number, BASE);
  return powers;
}

/**
 * The distinct hashes of `points` and of each of its one-deletions, into KEYS; answers how
 * many. A polynomial hash (mod 2^32) of each string: the hash without the code point at k is
 * the hash of the points before k, shifted by the length after it, plus the hash of the
 * points after k, so a word's keys cost a pass over it, without allocating (a glossary's
 * start files every word).
 */
function keysOf(points: ArrayLike<number>): number {
  const length = points.length;
  if (KEYS.length < length + 1) {
    KEYS = new Int32Array(length + 1);
    HEADS = new Int32Array(length + 2);
    POWERS = powersTo(length + 1);
  }
  HEADS[0] = 0;
  for (let i = 0; i < length; i += 1) {
    HEADS[i + 1] = (Math.imul(HEADS[i] as number, BASE) + (points[i] as number) + 1) | 0;
  }
  let count = 0;
  KEYS[count++] = finish(HEADS[length] as number, length);
  // The hash of the points after k, built from the end.
  let tail = 0;
  for (let k = length - 1; k >= 0; k -= 1) {
    // Deleting either of two equal neighbours leaves the same string: the first is filed.
    if (!(k > 0 && points[k] === points[k - 1])) {
      const shifted = Math.imul(HEADS[k] as number, POWERS[length - 1 - k] as number);
      const hash = finish((shifted + tail) | 0, length - 1);
      let seen = false;
      for (let j = 0; j < count && !seen; j += 1) seen = KEYS[j] === hash;
      if (!seen) KEYS[count++] = hash;
    }
    tail = (tail + Math.imul((points[k] as number) + 1, POWERS[length - 1 - k] as number)) | 0;
  }
  return count;
}

/** Mixes the length into a hash and spreads its bits over the low ones (the table's slot). */
function finish(hash: number, length: number): number {
  let h = Math.imul(hash ^ length, 0x2c1b3c6d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x297a2d39);
  return (h ^ (h >>> 12)) | 0;
}
