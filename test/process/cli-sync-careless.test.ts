import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { sampleTerm } from '../helpers/app.ts';
import { backends, tempDir } from '../helpers/backends.ts';
import { faultyProxy } from '../helpers/faulty-proxy.ts';
import { type ListeningApp, listenApp } from '../helpers/listening-app.ts';
import { runCli } from '../helpers/run-cli.ts';

/**
 * `glossary import --update --prune` fed the files a careless person writes: what it deletes
 * and writes must still be only what the file means and what the lines say.
 */

function fileOf(name: string, text: string): string {
  const file = path.join(tempDir('glossary-careless-'), name);
  fs.writeFileSync(file, text);
  return file;
}

async function storedTerms(app: ListeningApp): Promise<{ id: number; definition: string }[]> {
  return (await app.app.inject({ url: '/terms' })).json() as { id: number; definition: string }[];
}

async function storedIds(app: ListeningApp): Promise<number[]> {
  return (await storedTerms(app)).map((term) => term.id);
}

/** The ids of the lines `action ID` of a run's output. */
function reported(stdout: string, action: string): number[] {
  return [...stdout.matchAll(new RegExp(`^${action} (\\d+)`, 'gm'))]
    .map((match) => Number(match[1]))
    .sort((a, b) => a - b);
}

const ids = (count: number) => Array.from({ length: count }, (_, index) => index + 1);

for (const backend of backends()) {
  describe(`glossary import: a careless file (${backend.name})`, () => {
    let app: ListeningApp;
    beforeEach(async () => {
      app = await listenApp(backend);
    });
    afterEach(() => app.close());

    const run = (file: string, ...flags: string[]) =>
      runCli(['import', file, '--url', app.url, ...flags]);

    test('--prune keeps a term whose id the file writes as text ("2" in JSON, 3.0 in CSV), rejected as it is', async () => {
      const all = [sampleTerm(1), sampleTerm(2), sampleTerm(3)];
      assert.equal((await run(fileOf('all.json', JSON.stringify(all)))).code, 0);

      const json = fileOf(
        'glossary.json',
        JSON.stringify([sampleTerm(1), { ...sampleTerm(2), id: '2' }, sampleTerm(3)]),
      );
      const sync = await run(json, '--update', '--prune');
      assert.equal(sync.code, 1);
      assert.match(sync.stdout, /^rejected item 1 \(id "2"\): id: /m);
      assert.doesNotMatch(sync.stdout, /deleted/);
      assert.deepEqual(await storedIds(app), [1, 2, 3]);

      const csv = fileOf(
        'glossary.csv',
        `id,term,definition,category\n1,${all[0]?.term},${all[0]?.definition},${all[0]?.category}\n3.0,Three,Three.,backend\n`,
      );
      const csvSync = await run(csv, '--update', '--prune', '--dry-run');
      assert.match(csvSync.stdout, /^rejected line 3 \(id "3\.0"\): id: /m);
      assert.match(csvSync.stdout, /^deleted 2$/m);
      assert.doesNotMatch(csvSync.stdout, /deleted 3/);
    });

    test('a write that fails midway stops the sync, and every term it changed before stopping has its line', async () => {
      await run(fileOf('all.json', JSON.stringify(ids(40).map((id) => sampleTerm(id)))));
      const changed = ids(40).map((id) => sampleTerm(id, { definition: `Changed ${id}.` }));
      const proxy = await faultyProxy(
        app.url,
        (method, url) => method === 'PUT' && url === '/terms/25',
      );
      try {
        const file = fileOf('glossary.json', JSON.stringify(changed));
        const sync = await runCli([
          'import',
          file,
          '--url',
          proxy.url,
          '--update',
          '--batch-size',
          '20',
        ]);
        assert.equal(sync.code, 1);
        assert.match(
          sync.stderr,
          /answered 500: Internal Server Error; items 0 to 19 of .* were processed and items 20 to 39 in part \(0 created, \d+ updated, 0 rejected\)\n$/,
        );
        const updated = (await storedTerms(app))
          .filter((term) => term.definition.startsWith('Changed'))
          .map((term) => term.id);
        assert.ok(!updated.includes(25) && updated.includes(20));
        assert.deepEqual(reported(sync.stdout, 'updated'), updated);
      } finally {
        await proxy.close();
      }
    });

    test('a deletion that fails midway stops --prune, and every term deleted before has its line', async () => {
      await run(fileOf('all.json', JSON.stringify(ids(40).map((id) => sampleTerm(id)))));
      const proxy = await faultyProxy(
        app.url,
        (method, url) => method === 'DELETE' && url === '/terms/12',
      );
      try {
        const file = fileOf('glossary.json', JSON.stringify([sampleTerm(1)]));
        const sync = await runCli(['import', file, '--url', proxy.url, '--update', '--prune']);
        assert.equal(sync.code, 1);
        assert.match(sync.stderr, /answered 500.*pruning stopped\n$/);
        const left = new Set(await storedIds(app));
        const deleted = ids(40).filter((id) => !left.has(id));
        assert.ok(deleted.length > 0 && left.has(12));
        assert.deepEqual(reported(sync.stdout, 'deleted'), deleted);
      } finally {
        await proxy.close();
      }
    });
  });
}
