import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { oneLine } from '../../src/glossary/exports/names.ts';
import { rstEscape, sphinxFormat } from '../../src/glossary/exports/sphinx.ts';
import { ALL_TERMS, HOSTILE_TERMS, PLAIN_TERMS } from '../fixtures/hostile-terms.ts';
import { htmlText, renderFile, run, tempDir } from './export-helpers.ts';

/** A Sphinx project: the exported page, a page that points at terms, an index of both. */
async function build(dir: string, usage: string) {
  const src = path.join(dir, 'src');
  fs.mkdirSync(src);
  fs.writeFileSync(path.join(src, 'conf.py'), "project = 'Docs'\nexclude_patterns = ['_build']\n");
  fs.writeFileSync(
    path.join(src, 'index.rst'),
    'Docs\n====\n\n.. toctree::\n\n   usage\n   glossary\n',
  );
  fs.writeFileSync(path.join(src, 'glossary.rst'), await renderFile(sphinxFormat, ALL_TERMS));
  fs.writeFileSync(path.join(src, 'usage.rst'), `Usage\n=====\n\n${usage}\n`);
  const out = path.join(dir, 'html');
  const result = await run('sphinx-build', ['-W', '--keep-going', '-q', '-b', 'html', src, out]);
  return { result, out };
}

test('sphinx-build -W builds the glossary page and resolves :term: by name and by alias, hostile ones too', async (t) => {
  const dir = tempDir(t);
  // Every name and alias the glossary page keeps, pointed at from another page.
  const targets = [
    'Kubernetes',
    'K8s',
    'k8s',
    'Webhook',
    'Cache',
    'Cache (term 21)',
    'browser cache',
  ];
  for (const term of HOSTILE_TERMS)
    targets.push(...[term.term, ...(term.aliases ?? [])].map(oneLine));
  const usage = targets.map((target) => `- :term:\`${rstEscape(target)}\``).join('\n');
  const { result, out } = await build(dir, usage);
  assert.equal(result.code, 0, result.stderr || result.stdout);
  assert.equal(result.stderr, '', 'no warnings');

  const raw = fs.readFileSync(path.join(out, 'glossary.html'), 'utf8');
  assert.ok(!raw.includes('<script>alert'), 'no markup of a name reaches the page');
  const glossary = htmlText(raw);
  for (const term of ALL_TERMS) {
    for (const name of [term.term, ...(term.aliases ?? [])]) {
      assert.ok(glossary.includes(oneLine(name)), `${oneLine(name)} is shown as written`);
    }
  }
  assert.ok(glossary.includes('Cache (term 21)'), 'a later term with a taken name gets its id');
  assert.ok(glossary.includes('Cache duplicate id'));
  assert.ok(glossary.includes('.. raw:: html'), 'a directive in a definition stays text');

  const usageHtml = fs.readFileSync(path.join(out, 'usage.html'), 'utf8');
  const links = [
    ...usageHtml.matchAll(/<a class="reference internal" href="glossary\.html#([^"]+)"/g),
  ];
  assert.equal(links.length, targets.length, 'every :term: resolves to the glossary page');
});

test('the sphinx export of plain terms: aliases as term lines, see-also as :term:, an empty glossary says so', async () => {
  const page = await renderFile(sphinxFormat, PLAIN_TERMS);
  assert.equal(
    page,
    [
      '.. Written by `glossary export --format sphinx`; edit the glossary, not this file.',
      '',
      'Glossary',
      '========',
      '',
      '.. glossary::',
      '',
      '   Kubernetes',
      '   K8s',
      '',
      '      An open\\-source system for running containers\\. It schedules them on nodes\\.',
      '',
      '      See also: :term:`Webhook`, ID 99 (not in this glossary)',
      '',
      '   Webhook',
      '',
      '      An HTTP callback\\.',
      '      The service calls it when a term changes\\.',
      '',
      '      See also: :term:`Kubernetes`',
      '',
    ].join('\n'),
  );
  assert.equal(
    await renderFile(sphinxFormat, []),
    '.. Written by `glossary export --format sphinx`; edit the glossary, not this file.\n\nGlossary\n========\n\nThe glossary is empty.\n',
  );
});
