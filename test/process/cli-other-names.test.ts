import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { sampleTerm } from '../helpers/app.ts';
import { tempDir } from '../helpers/backends.ts';
import { type ListeningApp, listenApp } from '../helpers/listening-app.ts';
import { runCli } from '../helpers/run-cli.ts';

/**
 * `glossary import` and `export` with a term's other names (terminology-and-docs.md): JSON and
 * CSV carry them (CSV as two cells, entries separated by ` | `), Markdown shows them, and
 * `import --update` compares them. Needs stores that keep `aliases` and `avoid`.
 */

const NAMED = [
  sampleTerm(1, {
    term: 'Kubernetes',
    aliases: ['K8s', 'Kube, for short'],
    avoid: ['Kubernates', '=k8s'],
  }),
  sampleTerm(2, { term: 'Logical OR', aliases: ['||'], avoid: ['\\or'] }),
  sampleTerm(3),
];

function writeTemp(name: string, content: string): string {
  const file = path.join(tempDir('glossary-names-'), name);
  fs.writeFileSync(file, content);
  return file;
}

async function seed(app: ListeningApp, terms: unknown[]): Promise<void> {
  const response = await fetch(`${app.url}/terms/bulk`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(terms),
  });
  assert.equal(response.status, 207);
}

async function stored(app: ListeningApp): Promise<unknown[]> {
  return (await (await fetch(`${app.url}/terms`)).json()) as unknown[];
}

describe('glossary import and export with other names', () => {
  const apps: ListeningApp[] = [];
  let app: ListeningApp;
  beforeEach(async () => {
    app = await listenApp();
    apps.push(app);
  });
  afterEach(async () => {
    for (const one of apps.splice(0)) await one.close();
  });

  test('csv has the columns aliases and avoid, entries joined by " | ", neutralised, escaped', async () => {
    await seed(app, NAMED);
    const run = await runCli(['export', '--format', 'csv', '--url', app.url]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      run.stdout,
      [
        'id,term,definition,category,see_also,aliases,avoid',
        `1,Kubernetes,Definition of term 1.,backend,,"K8s | Kube, for short",Kubernates | '=k8s`,
        '2,Logical OR,Definition of term 2.,backend,,\\|\\|,\\\\or',
        '3,Term 3,Definition of term 3.,backend,,,',
        '',
      ].join('\r\n'),
    );
  });

  for (const format of ['json', 'csv'] as const) {
    test(`a ${format} export with other names imported elsewhere reproduces the glossary`, async () => {
      await seed(app, NAMED);
      const exported = await runCli(['export', '--format', format, '--url', app.url]);
      const other = await listenApp();
      apps.push(other);
      const imported = await runCli([
        'import',
        writeTemp(`glossary.${format}`, exported.stdout),
        '--url',
        other.url,
      ]);
      assert.equal(imported.code, 0, imported.stdout + imported.stderr);
      assert.deepEqual(await stored(other), NAMED);
      const again = await runCli(['export', '--format', format, '--url', other.url]);
      assert.equal(again.stdout, exported.stdout);
    });
  }

  test('a typed CSV cell "K8s | kube" is two aliases; an empty cell none', async () => {
    const file = writeTemp(
      'typed.csv',
      'id,term,definition,category,aliases,avoid\n1,Kubernetes,Runs containers.,devops,K8s | kube,\n',
    );
    const run = await runCli(['import', file, '--url', app.url]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.deepEqual(await stored(app), [
      {
        id: 1,
        term: 'Kubernetes',
        definition: 'Runs containers.',
        category: 'devops',
        see_also: [],
        aliases: ['K8s', 'kube'],
      },
    ]);
  });

  test('md lists the aliases and the names to avoid under each term, escaped', async () => {
    await seed(app, NAMED);
    const run = await runCli(['export', '--format', 'md', '--url', app.url]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /\n\*\*Also called:\*\* K8s; Kube, for short\n/);
    assert.match(run.stdout, /\n\*\*Avoid:\*\* Kubernates, =k8s\n/);
    assert.match(run.stdout, /\n\*\*Also called:\*\* \\\|\\\|\n\n\*\*Avoid:\*\* \\\\or\n/);
    assert.doesNotMatch(run.stdout.split('### Term 3')[1] ?? '', /Also called|Avoid/);
  });

  test('import --update compares the other names too, and reports a name another term holds', async () => {
    await seed(app, NAMED);
    const changed = [
      { ...NAMED[0], aliases: ['K8s'] },
      NAMED[1],
      sampleTerm(3, { avoid: ['Kubernetes'] }),
    ];
    const run = await runCli([
      'import',
      writeTemp('changed.json', JSON.stringify(changed)),
      '--url',
      app.url,
      '--update',
    ]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /0 created, 1 updated, 1 unchanged, 1 rejected \(3 terms\)/);
    assert.match(run.stdout, /item 2 \(id 3\): avoid\.0: 'Kubernetes' is the name of term 1\./);
    assert.deepEqual(await stored(app), [changed[0], NAMED[1], NAMED[2]]);
  });
});
