import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { tally } from '../../bench/lint-bench.ts';
import { corpusTerms, writeLintCorpus } from '../../bench/lint-corpus.ts';
import { runCli } from '../helpers/run-cli.ts';

function tempDir(t: { after: (fn: () => void) => void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lint-corpus-test-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('the same options write the same corpus, byte for byte', (t) => {
  const a = writeLintCorpus(tempDir(t), { files: 40, terms: 300 });
  const b = writeLintCorpus(tempDir(t), { files: 40, terms: 300 });
  assert.deepEqual(a.files, b.files);
  assert.equal(a.bytes, b.bytes);
  assert.deepEqual([...a.planted], [...b.planted]);
  for (const file of a.files) {
    const dirA = path.dirname(a.glossaryFile);
    const dirB = path.dirname(b.glossaryFile);
    assert.equal(
      fs.readFileSync(path.join(dirA, file), 'utf8'),
      fs.readFileSync(path.join(dirB, file), 'utf8'),
    );
  }
});

test('every name and name to avoid is its own: no two terms share a form', () => {
  const terms = corpusTerms(10_000);
  const owner = new Map<string, number>();
  for (const term of terms) {
    assert.equal(term.avoid.length, 3);
    for (const name of [term.term, ...term.avoid]) {
      const form = name.toLowerCase();
      const other = owner.get(form);
      assert.ok(other === undefined || other === term.id, `${name}: terms ${other} and ${term.id}`);
      owner.set(form, term.id);
    }
  }
});

test('files of about 5 KB, mostly Markdown, one in three with names to avoid in prose', (t) => {
  const corpus = writeLintCorpus(tempDir(t), { files: 600, terms: 2000 });
  const average = corpus.bytes / corpus.files.length;
  assert.ok(average > 4500 && average < 6500, `average ${average} bytes`);
  const markdown = corpus.files.filter((file) => file.endsWith('.md')).length;
  assert.ok(markdown / corpus.files.length > 0.8);
  for (const ext of ['.rst', '.adoc', '.txt']) {
    assert.ok(
      corpus.files.some((file) => file.endsWith(ext)),
      ext,
    );
  }
  const share = corpus.planted.size / corpus.files.length;
  assert.ok(share > 0.25 && share < 0.42, `share ${share}`);
  for (const planted of corpus.planted.values()) assert.ok(planted.length <= 3);
});

test('glossary lint finds every name planted in the prose, and none of those hidden in code, URLs and comments', async (t) => {
  const dir = tempDir(t);
  const corpus = writeLintCorpus(dir, { files: 60, terms: 500 });
  const run = await runCli(
    ['lint', '--glossary', corpus.glossaryFile, '--format', 'json', 'docs'],
    { cwd: dir },
  );
  assert.equal(run.code, 1, run.stderr);
  const findings = JSON.parse(run.stdout) as { file: string; found: string }[];
  const result = tally(findings, corpus.planted, corpus.files);
  const planted = [...corpus.planted.values()].flat().length;
  assert.ok(planted > 20);
  assert.equal(result.missed, 0);
  assert.equal(result.planted, planted);
  assert.equal(result.extra, 0);
});
