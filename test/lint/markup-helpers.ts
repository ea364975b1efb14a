import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Masker } from '../../src/lint/markup/mask.ts';

/** A fixture of test/fixtures/lint/. */
export function fixture(name: string): string {
  return fs.readFileSync(path.join(import.meta.dirname, '../fixtures/lint', name), 'utf8');
}

/**
 * Where `phrase` (its words separated by any white space, in any case) survives in the mask:
 * `line:column` of each occurrence, from 1, in the source's lines.
 */
export function kept(mask: Masker, source: string, phrase = 'web hook'): string[] {
  const masked = mask(source);
  const pattern = new RegExp(
    `(?<![\\p{L}\\p{N}])${phrase.split(' ').join('\\s+')}(?![\\p{L}\\p{N}])`,
    'giu',
  );
  return [...masked.matchAll(pattern)].map((match) => {
    const before = source.slice(0, match.index);
    const line = before.split('\n').length;
    return `${line}:${match.index - before.lastIndexOf('\n')}`;
  });
}

/** The source's line `line` (from 1). */
export function lineOf(source: string, line: number): string {
  return source.split('\n')[line - 1] ?? '';
}

/** The mask contract (markup/mask.ts): the source's length, and each code unit the source's, hidden or a space. */
export function assertMaskOf(source: string, mask: string): void {
  assert.equal(mask.length, source.length);
  for (let i = 0; i < mask.length; i++) {
    const code = mask.charCodeAt(i);
    assert.ok(code === 0 || code === 32 || code === source.charCodeAt(i), `at ${i}`);
  }
}
