import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { sampleTerm } from '../helpers/app.ts';
import { backends, tempDir } from '../helpers/backends.ts';
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

async function storedIds(app: ListeningApp): Promise<number[]> {
  const terms = (await app.app.inject({ url: '/terms' })).json() as { id: number }[];
  return terms.map((term) => term.id);
}

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
  });
}
