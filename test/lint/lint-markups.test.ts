import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { maskAsciidoc } from '../../src/lint/markup/asciidoc.ts';
import { maskMarkdown, maskMdx } from '../../src/lint/markup/markdown.ts';
import type { Masker } from '../../src/lint/markup/mask.ts';
import { maskRst } from '../../src/lint/markup/rst.ts';
import { runCli } from '../helpers/run-cli.ts';
import { fixture, kept } from './markup-helpers.ts';

/**
 * `glossary lint` on a real file of each markup, as a docs repository holds them: every "web
 * hook" in prose is found at its line and column, none in code; `--fix` rewrites exactly those
 * (but in a reStructuredText table, whose columns are aligned), leaves every byte of everything
 * else as it was, and a second run finds only what it left.
 */

const FILES: [string, Masker][] = [
  ['sample.md', maskMarkdown],
  ['sample.mdx', maskMdx],
  ['sample.rst', maskRst],
  ['sample.adoc', maskAsciidoc],
];

const GLOSSARY = [
  { id: 42, term: 'webhook', definition: 'An HTTP callback.', avoid: ['web hook'] },
];

describe('glossary lint on each markup', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-lint-markups-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'docs'));
  for (const [name] of FILES) fs.writeFileSync(path.join(dir, 'docs', name), fixture(name));
  fs.writeFileSync(path.join(dir, 'glossary.json'), JSON.stringify(GLOSSARY));
  const lint = (...args: string[]) =>
    runCli(['lint', '--glossary', 'glossary.json', ...args], { cwd: dir });

  test('finds each name to avoid in prose, at its line and column, and none elsewhere', async () => {
    const run = await lint('--format', 'json', 'docs');
    assert.equal(run.code, 1, run.stderr);
    const findings = JSON.parse(run.stdout) as {
      file: string;
      line: number;
      column: number;
      found: string;
      use: string;
    }[];
    for (const [name, mask] of FILES) {
      const expected = kept(mask, fixture(name));
      const got = findings
        .filter((finding) => finding.file === `docs/${name}`)
        .map((finding) => `${finding.line}:${finding.column}`);
      assert.deepEqual(got, expected, name);
    }
    for (const finding of findings) {
      assert.match(finding.found, /^web hook$/i);
      assert.equal(finding.use, finding.found.startsWith('W') ? 'Webhook' : 'webhook');
    }
  });

  test('--fix rewrites the prose only: everything not prose is byte for byte as it was', async () => {
    // reStructuredText's tables are aligned by column: their findings (lines 69 and 75) are
    // left, and reported where they are after the fix (a name broken over lines 8-9 was joined).
    const leftInTables: Record<string, string[]> = {
      'sample.rst': ['68:3', '68:16', '74:1', '74:14'],
    };
    const fixed = await lint('--fix', '--format', 'json', 'docs');
    assert.equal(fixed.code, 1, fixed.stderr);
    for (const [name, mask] of FILES) {
      const before = fixture(name);
      const after = fs.readFileSync(path.join(dir, 'docs', name), 'utf8');
      assert.deepEqual(kept(mask, after), leftInTables[name] ?? [], name);
      // What was not prose, with the prose taken out, reads the same before and after.
      const notProse = (text: string) =>
        [...mask(text)].map((char, i) => (char === '\u0000' ? text[i] : '')).join('');
      assert.equal(notProse(after), notProse(before), name);
      // And the names in it are still there.
      assert.ok(/web hook/i.test(after), name);
    }
    const left = (JSON.parse(fixed.stdout) as { file: string; line: number; column: number }[]).map(
      (f) => `${f.file}:${f.line}:${f.column}`,
    );
    assert.deepEqual(
      left,
      leftInTables['sample.rst']?.map((at) => `docs/sample.rst:${at}`),
    );
    const again = await lint('--format', 'json', 'docs');
    assert.equal(again.code, 1);
    assert.equal(again.stdout, fixed.stdout);
  });
});
