import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { type ParsedQuery, rankingOf } from '../../src/glossary/word-search.ts';

/**
 * A ranking's name stands for its levels (term-store.ts `Ranking`): both stores key the
 * rankings and first pages they keep by it, so two rankings with one name must have the same
 * levels and matches, and two that differ must not share a name. Few letters, so that queries
 * often share their words and differ only in a word's similar words or in which word is last.
 */
const word = fc.constantFrom('ci', 'cli', 'pipe', 'pipeline', 'pipelne', 'token');

const parsedQuery: fc.Arbitrary<ParsedQuery> = fc
  .array(fc.tuple(word, fc.uniqueArray(word, { maxLength: 2 })), { minLength: 1, maxLength: 3 })
  .map((words) => ({
    key: words.map(([w]) => w).join(' '),
    words: words.map(([w, similar], i) => ({ word: w, last: i === words.length - 1, similar })),
  }));

test('rankings with one name have the same levels and matches, and different ones differ in name', () => {
  fc.assert(
    fc.property(parsedQuery, parsedQuery, (a, b) => {
      const first = rankingOf(a);
      const second = rankingOf(b);
      const same =
        JSON.stringify([first.levels, first.matches]) ===
        JSON.stringify([second.levels, second.matches]);
      assert.equal(first.name === second.name, same);
    }),
    { numRuns: 2000 },
  );
});
