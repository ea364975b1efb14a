import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { editDistance, WordIndex, wordLength } from '../../src/glossary/words.ts';

/**
 * The in-memory index of the words a typo may find (words.ts): whatever it skips or cuts short
 * to be fast, it answers exactly what `editDistance` says, word by word, and forgets what it
 * is told to forget.
 */

/** Few characters, so that words are often a few edits apart; some beyond the BMP. */
const word = fc.string({
  unit: fc.constantFrom('a', 'b', 'c', 'e', 'z', 'é', 'ß', '7', '😀', '𝔄', 'ж'),
  minLength: 1,
  maxLength: 12,
});

function expected(known: Iterable<string>, query: string, max: number): string[] {
  return [...known].filter((w) => w !== query && editDistance(query, w, max) <= max).sort();
}

describe('WordIndex', () => {
  test('similar answers exactly the known words 1 to max edits away, after adds and removals', () => {
    fc.assert(
      fc.property(
        fc.array(word, { maxLength: 60 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.array(fc.tuple(word, fc.integer({ min: 0, max: 4 })), { minLength: 1, maxLength: 10 }),
        (added, removals, queries) => {
          const index = new WordIndex();
          const known = new Set<string>();
          for (const w of added) {
            index.add(w);
            known.add(w);
          }
          for (const pick of removals) {
            const w = added[pick % Math.max(1, added.length)];
            if (w === undefined) continue;
            index.remove(w);
            known.delete(w);
          }
          assert.equal(index.size, known.size);
          assert.deepEqual([...index.words()].sort(), [...known].sort());
          for (const [query, max] of queries) {
            assert.deepEqual(index.similar(query, max), expected(known, query, max), query);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  test('near misses: swaps, one insertion or deletion, and words a length apart', () => {
    const index = new WordIndex();
    const words = ['kubernetes', 'kuberntes', 'kubernetess', 'ubernetes', 'kubernets', 'cluster'];
    for (const w of words) index.add(w);
    assert.deepEqual(index.similar('kuberentes', 1), ['kubernetes', 'kuberntes']);
    assert.deepEqual(index.similar('kuberentes', 2), expected(words, 'kuberentes', 2));
    assert.equal(index.similar('kuberentes', 2).length, 5);
    assert.deepEqual(index.similar('clsuter', 1), ['cluster']);
    assert.deepEqual(index.similar('clusters', 1), ['cluster']);
    index.remove('cluster');
    index.remove('cluster');
    assert.deepEqual(index.similar('clsuter', 1), []);
    assert.equal(wordLength('😀😀'), 2);
    index.add('😀a😀');
    assert.deepEqual(index.similar('😀b😀', 1), ['😀a😀']);
    assert.deepEqual(index.similar('a😀😀', 1), ['😀a😀'], 'a swap of neighbours beyond the BMP');
  });

  test('one edit, as the service asks it, after interleaved adds and removes of many words', () => {
    // Query words of 5 to 8 code points with one edit go through the deletion index
    // (delete-index.ts); hundreds of words make its table grow, removals free entries and
    // numbers that later adds take again, and short hex-like words crowd one length.
    const short = fc.string({
      unit: fc.constantFrom('a', 'b', 'c', '2', '3', 'é', '😀'),
      minLength: 3,
      maxLength: 10,
    });
    const operation = fc.oneof(
      fc.record({ add: fc.array(short, { minLength: 1, maxLength: 80 }) }),
      fc.record({ remove: fc.array(fc.nat(), { minLength: 1, maxLength: 40 }) }),
      fc.record({ query: short }),
    );
    fc.assert(
      fc.property(fc.array(operation, { minLength: 1, maxLength: 30 }), (operations) => {
        const index = new WordIndex();
        const known = new Set<string>();
        for (const op of operations) {
          if ('add' in op) {
            for (const w of op.add) {
              index.add(w);
              known.add(w);
            }
          } else if ('remove' in op) {
            const list = [...known];
            for (const pick of op.remove) {
              const w = list[pick % Math.max(1, list.length)];
              if (w === undefined) continue;
              index.remove(w);
              known.delete(w);
            }
          } else {
            assert.deepEqual(index.similar(op.query, 1), expected(known, op.query, 1), op.query);
          }
          for (const w of [...known].slice(0, 3)) {
            assert.deepEqual(index.similar(w, 1), expected(known, w, 1), w);
          }
        }
        assert.equal(index.size, known.size);
      }),
      { numRuns: 300 },
    );
  });

  test('hex identifiers: each one-edit neighbour found, none else, as words come and go', () => {
    const index = new WordIndex();
    const all: string[] = [];
    for (let i = 0; i < 0x10000; i += 7) {
      const hex = i.toString(16).padStart(4, '0');
      if (/[a-f]/.test(hex)) all.push(hex);
    }
    for (const w of all) index.add(w);
    const known = new Set(all);
    for (const query of ['cache', '2a3b', 'beef', 'deadb', 'c0ffe', 'a1b2c3']) {
      assert.deepEqual(index.similar(query, 1), expected(known, query, 1), query);
    }
    for (const w of all.filter((_, i) => i % 3 === 0)) {
      index.remove(w);
      known.delete(w);
    }
    for (const w of all.filter((_, i) => i % 6 === 0)) {
      index.add(w);
      known.add(w);
    }
    for (const query of [
      'cache',
      '2a3b',
      'beef',
      'deadb',
      'c0ffe',
      'a1b2c3',
      ...all.slice(0, 50),
    ]) {
      assert.deepEqual(index.similar(query, 1), expected(known, query, 1), query);
    }
  });
});
