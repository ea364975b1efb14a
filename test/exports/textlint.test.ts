import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { oneLine } from '../../src/glossary/exports/names.ts';
import { textlintFormat } from '../../src/glossary/exports/textlint.ts';
import { ALL_TERMS, PLAIN_TERMS } from '../fixtures/hostile-terms.ts';
import { renderFile, run, tempDir } from './export-helpers.ts';

const TEXTLINT = fileURLToPath(new URL('../../node_modules/.bin/textlint', import.meta.url));

interface Finding {
  message: string;
  line: number;
  column: number;
}

/** Real textlint with the terminology rule, its default terms off, reading the exported file. */
async function textlint(dir: string, termsFile: string, args: string[]) {
  const config = path.join(dir, 'textlintrc.json');
  fs.writeFileSync(
    config,
    JSON.stringify({ rules: { terminology: { defaultTerms: false, terms: termsFile } } }),
  );
  return run(TEXTLINT, ['--config', config, '--rule', 'terminology', ...args], { cwd: dir });
}

async function findings(dir: string, termsFile: string, file: string): Promise<Finding[]> {
  const result = await textlint(dir, termsFile, ['--format', 'json', file]);
  assert.ok(result.code === 0 || result.code === 1, result.stderr || result.stdout);
  const [report] = JSON.parse(result.stdout) as { messages: Finding[] }[];
  return report?.messages ?? [];
}

test('textlint flags each name to avoid in a Markdown document and --fix writes the name', async (t) => {
  const dir = tempDir(t);
  const termsFile = path.join(dir, 'glossary-terms.json');
  fs.writeFileSync(termsFile, await renderFile(textlintFormat, PLAIN_TERMS));
  const doc = path.join(dir, 'guide.md');
  const text = [
    '# Deploying',
    '',
    'Kubernates runs the service; a web hook tells the',
    'kube-netes cluster, and each web\nhook or web-hook call is logged.',
    '',
    'Kubernetes, K8s, webhooks and `web hook` in code are fine.',
    '',
  ].join('\n');
  fs.writeFileSync(doc, text);

  const found = await findings(dir, termsFile, doc);
  assert.deepEqual(
    found.map((finding) => [finding.line, finding.message]),
    [
      [3, 'Incorrect term: “Kubernates”, use “Kubernetes” instead'],
      [3, 'Incorrect term: “web hook”, use “Webhook” instead'],
      [4, 'Incorrect term: “kube-netes”, use “Kubernetes” instead'],
      [4, 'Incorrect term: “web\nhook”, use “Webhook” instead'],
      [5, 'Incorrect term: “web-hook”, use “Webhook” instead'],
    ],
  );

  const fixed = await textlint(dir, termsFile, ['--fix', doc]);
  assert.equal(fixed.code, 0, fixed.stderr || fixed.stdout);
  assert.equal(
    fs.readFileSync(doc, 'utf8'),
    [
      '# Deploying',
      '',
      'Kubernetes runs the service; a Webhook tells the',
      'Kubernetes cluster, and each Webhook or Webhook call is logged.',
      '',
      'Kubernetes, K8s, webhooks and `web hook` in code are fine.',
      '',
    ].join('\n'),
  );
  assert.deepEqual(await findings(dir, termsFile, doc), []);
});

test('textlint reads the terms file of hostile names and flags and fixes every name to avoid', async (t) => {
  const dir = tempDir(t);
  const termsFile = path.join(dir, 'glossary-terms.json');
  fs.writeFileSync(termsFile, await renderFile(textlintFormat, ALL_TERMS));
  const avoided = ALL_TERMS.flatMap((term) =>
    (term.avoid ?? [])
      // Avoided by two terms with different names: no single replacement, so not in the file.
      .filter((entry) => entry.toLowerCase() !== 'stash')
      .map((entry) => ({ entry: oneLine(entry), use: oneLine(term.term) })),
  );
  // Plain text, so no markup of the document's own hides a name (`*`, `<...>`, backticks).
  const doc = path.join(dir, 'notes.txt');
  fs.writeFileSync(
    doc,
    `${avoided.map(({ entry }) => `Do not write ${entry} here.`).join('\n\n')}\n`,
  );

  const found = await findings(dir, termsFile, doc);
  assert.deepEqual(
    found.map((finding) => finding.message),
    avoided.map(({ entry, use }) => `Incorrect term: “${entry}”, use “${use}” instead`),
  );

  const fixed = await textlint(dir, termsFile, ['--fix', doc]);
  assert.equal(fixed.code, 0, fixed.stderr || fixed.stdout);
  assert.equal(
    fs.readFileSync(doc, 'utf8'),
    `${avoided.map(({ use }) => `Do not write ${use} here.`).join('\n\n')}\n`,
  );
});
