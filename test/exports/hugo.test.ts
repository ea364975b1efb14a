import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { hugoFormat } from '../../src/glossary/exports/hugo.ts';
import { textLines } from '../../src/glossary/exports/names.ts';
import { ALL_TERMS, PLAIN_TERMS } from '../fixtures/hostile-terms.ts';
import { htmlText, renderFolder, run, tempDir } from './export-helpers.ts';

async function build(dir: string) {
  return run('hugo', ['--source', dir, '--destination', 'public', '--panicOnWarning', '--quiet']);
}

function titleOf(html: string): string {
  return htmlText(/<title>([\s\S]*?)<\/title>/.exec(html)?.[1] ?? '');
}

test('the hugo export of plain terms: a page per term with the Kubernetes glossary front matter', async (t) => {
  const dir = tempDir(t);
  const paths = await renderFolder(hugoFormat, PLAIN_TERMS, dir);
  assert.deepEqual(paths, [
    'hugo.toml',
    'layouts/glossary/single.html',
    'layouts/glossary/list.html',
    'content/glossary/_index.md',
    'content/glossary/1.md',
    'content/glossary/2.md',
  ]);
  assert.equal(
    fs.readFileSync(path.join(dir, 'content/glossary/1.md'), 'utf8'),
    [
      '---',
      'title: "Kubernetes"',
      'id: 1',
      'aka: ["K8s"]',
      'tags: ["devops"]',
      'avoid: ["Kubernates", "kube-netes"]',
      'see_also: [2, 99]',
      'short_description: "An open-source system for running containers."',
      '---',
      'An open\\-source system for running containers\\. It schedules them on nodes\\.',
      '',
    ].join('\n'),
  );
  const result = await build(dir);
  assert.equal(result.code, 0, result.stderr || result.stdout);
  const page = fs.readFileSync(path.join(dir, 'public/glossary/1/index.html'), 'utf8');
  assert.equal(titleOf(page), 'Kubernetes');
  assert.match(page, /<h1 id="term-1">Kubernetes<\/h1>/);
  assert.match(page, /<p>Also: K8s<\/p>/);
  assert.match(page, /<a href="\/glossary\/2\/">Webhook<\/a>, ID 99 \(not in this glossary\)/);
  const list = fs.readFileSync(path.join(dir, 'public/glossary/index.html'), 'utf8');
  assert.match(list, /<dt id="term-1"><a href="\/glossary\/1\/">Kubernetes<\/a><\/dt>/);
});

test('hugo builds a page for every term, hostile ones too, each titled with its name as written', async (t) => {
  const dir = tempDir(t);
  await renderFolder(hugoFormat, ALL_TERMS, dir);
  const result = await build(dir);
  assert.equal(result.code, 0, result.stderr || result.stdout);
  assert.equal(result.stderr, '');

  const seen = new Map<number, number>();
  for (const term of ALL_TERMS) {
    const count = (seen.get(term.id) ?? 0) + 1;
    seen.set(term.id, count);
    const file = count === 1 ? `${term.id}` : `${term.id}-${count}`;
    const html = fs.readFileSync(path.join(dir, 'public/glossary', file, 'index.html'), 'utf8');
    assert.equal(titleOf(html), term.term, `page ${file} is titled ${JSON.stringify(term.term)}`);
    assert.ok(
      !html.includes('<script>alert') && !html.includes('<b>'),
      `no markup in page ${file}`,
    );
    const text = htmlText(html.replace(/<[^>]+>/g, ''));
    for (const alias of term.aliases ?? []) {
      assert.ok(text.includes(alias), `alias ${alias} shown on page ${file}`);
    }
    for (const line of textLines(term.definition).map((each) => each.trim())) {
      assert.ok(text.includes(line), `definition line ${JSON.stringify(line)} shown as written`);
    }
  }
});

test('an empty glossary still builds with hugo: the section page and no term', async (t) => {
  const dir = tempDir(t);
  const paths = await renderFolder(hugoFormat, [], dir);
  assert.equal(paths.filter((file) => file.startsWith('content/glossary/')).length, 1);
  const result = await build(dir);
  assert.equal(result.code, 0, result.stderr || result.stdout);
  const list = fs.readFileSync(path.join(dir, 'public/glossary/index.html'), 'utf8');
  assert.equal(titleOf(list), 'Glossary');
});
