import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { mkdocsFormat } from '../../src/glossary/exports/mkdocs.ts';
import { firstSentence, oneLine } from '../../src/glossary/exports/names.ts';
import { ALL_TERMS, PLAIN_TERMS } from '../fixtures/hostile-terms.ts';
import { htmlText, renderFolder, run, tempDir } from './export-helpers.ts';

async function build(dir: string) {
  return run('/usr/bin/mkdocs', ['build', '--strict', '--quiet'], { cwd: dir });
}

/** Every `<abbr>` of a built page: its text and its title, as a reader sees them. */
function abbrs(html: string): [string, string][] {
  return [...html.matchAll(/<abbr title="([^"]*)">([^<]*)<\/abbr>/g)].map((match) => [
    htmlText(match[2] ?? ''),
    htmlText(match[1] ?? ''),
  ]);
}

test('mkdocs build --strict of the export plus a page writing an alias renders it as <abbr>', async (t) => {
  const dir = tempDir(t);
  const paths = await renderFolder(mkdocsFormat, PLAIN_TERMS, dir);
  assert.deepEqual(paths, ['mkdocs.yml', 'includes/abbreviations.md', 'docs/glossary.md']);
  assert.equal(
    fs.readFileSync(path.join(dir, 'includes/abbreviations.md'), 'utf8'),
    '*[K8s]: Kubernetes: An open-source system for running containers.\n',
  );
  fs.writeFileSync(path.join(dir, 'docs/index.md'), '# Home\n\nWe deploy with K8s every day.\n');
  const result = await build(dir);
  assert.equal(result.code, 0, result.stderr || result.stdout);
  assert.equal(result.stderr, '');
  const home = fs.readFileSync(path.join(dir, 'site/index.html'), 'utf8');
  assert.deepEqual(abbrs(home), [
    ['K8s', 'Kubernetes: An open-source system for running containers.'],
  ]);
  const glossary = fs.readFileSync(path.join(dir, 'site/glossary/index.html'), 'utf8');
  assert.match(glossary, /<h3 id="term-1">Kubernetes<\/h3>/);
  assert.match(glossary, /<a href="#term-2">Webhook<\/a>/);
});

test('hostile names stay text in the MkDocs build, and every alias that can be an abbreviation is one', async (t) => {
  const dir = tempDir(t);
  await renderFolder(mkdocsFormat, ALL_TERMS, dir);
  // Aliases Python-Markdown can find in running text: a word character at each end (its `\b`).
  const owners = new Map<string, string>();
  for (const term of ALL_TERMS) {
    for (const alias of (term.aliases ?? []).map(oneLine)) {
      if (!/^[\p{L}\p{N}_].*[\p{L}\p{N}_]$|^[\p{L}\p{N}_]$/u.test(alias) || owners.has(alias))
        continue;
      owners.set(alias, `${oneLine(term.term)}: ${firstSentence(term.definition)}`);
    }
  }
  const sentences = [...owners.keys()].map((alias) => `Use ${alias} here.`);
  fs.writeFileSync(path.join(dir, 'docs/index.md'), `# Home\n\n${sentences.join('\n\n')}\n`);
  const result = await build(dir);
  assert.equal(result.code, 0, result.stderr || result.stdout);
  assert.equal(result.stderr, '');

  const home = fs.readFileSync(path.join(dir, 'site/index.html'), 'utf8');
  assert.deepEqual(abbrs(home), [...owners.entries()]);

  const raw = fs.readFileSync(path.join(dir, 'site/glossary/index.html'), 'utf8');
  assert.ok(!raw.includes('<script>alert'), 'no markup of a name or definition reaches the page');
  assert.ok(!raw.includes('<pre>'), 'no definition line turns into code');
  const text = htmlText(raw.replace(/<[^>]+>/g, ''));
  for (const term of ALL_TERMS) {
    assert.ok(text.includes(oneLine(term.term)), `${oneLine(term.term)} is shown as written`);
  }
  assert.ok(text.includes('{{< shortcode >}}') && text.includes('--8<-- "/etc/passwd"'));
  for (const term of ALL_TERMS) {
    const anchors = raw.match(new RegExp(`id="term-${term.id}"`, 'g')) ?? [];
    assert.equal(anchors.length, 1, `one anchor for id ${term.id}`);
  }
});

test('an empty glossary still builds with mkdocs --strict: no abbreviations, a page that says so', async (t) => {
  const dir = tempDir(t);
  await renderFolder(mkdocsFormat, [], dir);
  assert.equal(fs.readFileSync(path.join(dir, 'includes/abbreviations.md'), 'utf8'), '');
  fs.writeFileSync(path.join(dir, 'docs/index.md'), '# Home\n\nNothing yet.\n');
  const result = await build(dir);
  assert.equal(result.code, 0, result.stderr || result.stdout);
  const glossary = fs.readFileSync(path.join(dir, 'site/glossary/index.html'), 'utf8');
  assert.match(glossary, /The glossary is empty\./);
});
