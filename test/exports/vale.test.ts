import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { oneLine } from '../../src/glossary/exports/names.ts';
import { valeFormat } from '../../src/glossary/exports/vale.ts';
import { ALL_TERMS, PLAIN_TERMS } from '../fixtures/hostile-terms.ts';
import { renderFolder, run, tempDir } from './export-helpers.ts';

// Vale itself cannot be installed on these machines (docs/docs-pipeline.md): the folder's layout
// is checked against what Vale 3 reads, its YAML read by a YAML 1.1 reader, and every pattern
// compiled and run by Go's regexp package, the RE2 engine Vale is built on.

const RE2_CHECK = fileURLToPath(new URL('./re2-check.go', import.meta.url));

/** A vocabulary file's entries as Vale reads them: trimmed, without blanks and `# ` comments. */
function vocabEntries(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('# '));
}

interface Re2Answer {
  errors: string[];
  acceptUnmatched: string[];
  rejectFound: string[];
  swapAlerts: { observed: string; expected: string }[][];
}

async function goCheck(request: object): Promise<Re2Answer> {
  const result = await run('go', ['run', RE2_CHECK], {
    input: JSON.stringify(request),
    env: { ...process.env, GOPROXY: 'off', GOFLAGS: '', GOTOOLCHAIN: 'local' },
  });
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as Re2Answer;
}

async function readYaml(file: string): Promise<Record<string, unknown>> {
  const result = await run('/usr/bin/python3', [
    '-c',
    'import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1], encoding="utf-8"))))',
    file,
  ]);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

test('the vale export is a Vale 3 folder: .vale.ini, the Glossary vocabulary under StylesPath, the Glossary style', async (t) => {
  const dir = tempDir(t);
  const paths = await renderFolder(valeFormat, PLAIN_TERMS, dir);
  assert.deepEqual(paths.sort(), [
    '.vale.ini',
    'styles/Glossary/Terms.yml',
    'styles/config/vocabularies/Glossary/accept.txt',
    'styles/config/vocabularies/Glossary/reject.txt',
  ]);
  const ini = fs.readFileSync(path.join(dir, '.vale.ini'), 'utf8');
  const stylesPath = /^StylesPath = (.+)$/m.exec(ini)?.[1];
  const vocab = /^Vocab = (.+)$/m.exec(ini)?.[1];
  assert.equal(stylesPath, 'styles');
  assert.equal(vocab, 'Glossary');
  assert.match(ini, /^BasedOnStyles = Vale, Glossary$/m);
  // Vale 3: <StylesPath>/config/vocabularies/<Vocab>/ and <StylesPath>/<Style>/<Rule>.yml.
  assert.ok(fs.statSync(path.join(dir, stylesPath, 'config/vocabularies', vocab)).isDirectory());
  assert.ok(fs.statSync(path.join(dir, stylesPath, 'Glossary/Terms.yml')).isFile());

  const accept = vocabEntries(
    fs.readFileSync(path.join(dir, 'styles/config/vocabularies/Glossary/accept.txt'), 'utf8'),
  );
  assert.deepEqual(accept, ['Kubernetes', 'K8s', 'Webhook']);
  assert.deepEqual(
    vocabEntries(
      fs.readFileSync(path.join(dir, 'styles/config/vocabularies/Glossary/reject.txt'), 'utf8'),
    ),
    [],
  );
  const rule = await readYaml(path.join(dir, 'styles/Glossary/Terms.yml'));
  assert.deepEqual(rule, {
    extends: 'substitution',
    message: "Use '%s' instead of '%s' (glossary).",
    level: 'error',
    ignorecase: true,
    nonword: true,
    swap: {
      '\\bkube-netes\\b': 'Kubernetes',
      '\\bKubernates\\b': 'Kubernetes',
      '\\bweb\\s+hook\\b': 'Webhook',
      '\\bweb-hook\\b': 'Webhook',
    },
  });
});

test('every vale pattern is RE2, every name is accepted and every name to avoid is found, hostile names too', async (t) => {
  const dir = tempDir(t);
  await renderFolder(valeFormat, ALL_TERMS, dir);
  const vocabDir = path.join(dir, 'styles/config/vocabularies/Glossary');
  const accept = vocabEntries(fs.readFileSync(path.join(vocabDir, 'accept.txt'), 'utf8'));
  const reject = vocabEntries(fs.readFileSync(path.join(vocabDir, 'reject.txt'), 'utf8'));
  const rule = await readYaml(path.join(dir, 'styles/Glossary/Terms.yml'));
  const swap = rule.swap as Record<string, string>;

  // No lookaround and no backreference anywhere: RE2 has neither (Go would refuse them below).
  for (const pattern of [...accept, ...reject, ...Object.keys(swap)]) {
    assert.doesNotMatch(pattern, /\(\?<?[=!]|\\[1-9]/, pattern);
  }

  // "stash" and "Stash" are avoided by two terms with different names: no better name.
  assert.deepEqual(reject, ['(?i:stash)']);

  const names = ALL_TERMS.flatMap((term) => [term.term, ...(term.aliases ?? [])]).map(oneLine);
  const avoided = ALL_TERMS.flatMap((term) =>
    (term.avoid ?? [])
      .filter((entry) => entry.toLowerCase() !== 'stash')
      .map((entry) => ({ entry: oneLine(entry), use: oneLine(term.term) })),
  );
  const answer = await goCheck({
    accept,
    acceptNames: names,
    reject,
    rejectTexts: ['We Stash it.', 'We stash it.', 'A stashed thing.'],
    swap,
    ignorecase: rule.ignorecase,
    nonword: rule.nonword,
    swapTexts: [
      ...avoided.map(({ entry }) => `Do not write ${entry} here.`),
      'A web\nhook across a line, and KUBERNATES shouted.',
      'Kubernatesque, webhooks and Kubernetes are fine.',
    ],
  });
  assert.deepEqual(answer.errors, []);
  assert.deepEqual(answer.acceptUnmatched, [], 'every name and alias is an accepted entry');
  assert.deepEqual(answer.rejectFound, ['Stash', 'stash', '']);
  avoided.forEach(({ entry, use }, index) => {
    assert.deepEqual(answer.swapAlerts[index], [{ observed: entry, expected: use }], entry);
  });
  assert.deepEqual(answer.swapAlerts[avoided.length], [
    { observed: 'web\nhook', expected: 'Webhook' },
    { observed: 'KUBERNATES', expected: 'Kubernetes' },
  ]);
  assert.deepEqual(answer.swapAlerts[avoided.length + 1], []);
});

test('the vale export of an empty glossary: empty lists and a rule with no swap', async (t) => {
  const dir = tempDir(t);
  await renderFolder(valeFormat, [], dir);
  const vocabDir = path.join(dir, 'styles/config/vocabularies/Glossary');
  assert.deepEqual(vocabEntries(fs.readFileSync(path.join(vocabDir, 'accept.txt'), 'utf8')), []);
  assert.deepEqual(vocabEntries(fs.readFileSync(path.join(vocabDir, 'reject.txt'), 'utf8')), []);
  const rule = await readYaml(path.join(dir, 'styles/Glossary/Terms.yml'));
  assert.deepEqual(rule.swap, {});
});
