import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { caseFold, foldCase, isAscii } from '../../src/glossary/fold-case.ts';
import { nameFold } from '../../src/glossary/other-names.ts';

/**
 * The folds take a shortcut for ASCII text (its lower case). The shortcut must give exactly
 * what the general path gives: here the general path is written out as it stands in
 * fold-case.ts and other-names.ts, and both are compared on ASCII text of every kind.
 */

const generalCaseFold = (text: string) =>
  text.toUpperCase().toLowerCase().replaceAll('ς', 'σ').replaceAll('ß', 'ss');
const generalFoldCase = (text: string) => generalCaseFold(text.normalize('NFC')).normalize('NFC');
const generalNameFold = (text: string) =>
  generalFoldCase(text.normalize('NFKD').replace(/\p{M}/gu, ''))
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .trim()
    .replace(/\s+/gu, ' ');

const asciiText = fc.string({
  unit: fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)),
});

test('on ASCII text the shortcut folds exactly as the general path', () => {
  fc.assert(
    fc.property(asciiText, (text) => {
      assert.equal(isAscii(text), true);
      assert.equal(caseFold(text), generalCaseFold(text));
      assert.equal(foldCase(text), generalFoldCase(text));
      assert.equal(nameFold(text), generalNameFold(text));
    }),
    { numRuns: 2000 },
  );
});

test('text beyond ASCII takes the general path', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme' }), (text) => {
      assert.equal(caseFold(text), generalCaseFold(text));
      assert.equal(foldCase(text), generalFoldCase(text));
      assert.equal(nameFold(text), generalNameFold(text));
    }),
    { numRuns: 2000 },
  );
  assert.equal(isAscii('Straße'), false);
  assert.equal(nameFold('  Straße\u00a0 X '), 'strasse x');
  assert.equal(foldCase('ΟΣ'), 'οσ');
});
