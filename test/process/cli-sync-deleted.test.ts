import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { sampleTerm } from '../helpers/app.ts';
import { backends, tempDir } from '../helpers/backends.ts';
import { type ListeningApp, listenApp } from '../helpers/listening-app.ts';
import { runCli } from '../helpers/run-cli.ts';

/**
 * `glossary import --update`: a term someone deleted on the service (here: through the API, as
 * the page does) while the file kept it is not silently created again by the next sync.
 */

function fileOf(terms: unknown[]): string {
  const file = path.join(tempDir('glossary-sync-deleted-'), 'glossary.json');
  fs.writeFileSync(file, JSON.stringify(terms));
  return file;
}

async function storedIds(app: ListeningApp): Promise<number[]> {
  const response = await app.app.inject({ url: '/terms' });
  return (response.json() as { id: number }[]).map((term) => term.id);
}

async function deleteElsewhere(app: ListeningApp, id: number): Promise<void> {
  const response = await app.app.inject({ method: 'DELETE', url: `/terms/${id}` });
  assert.equal(response.statusCode, 204, response.body);
}

for (const backend of backends()) {
  describe(`glossary import --update: a term deleted on the service (${backend.name})`, () => {
    let app: ListeningApp;
    beforeEach(async () => {
      app = await listenApp(backend);
    });
    afterEach(() => app.close());

    const run = (file: string, ...flags: string[]) =>
      runCli(['import', file, '--url', app.url, ...flags]);

    test('is a conflict, not re-created (exit 1); an id that never existed is plainly created; --force re-creates it', async () => {
      const file = fileOf([sampleTerm(1), sampleTerm(2), sampleTerm(3)]);
      assert.equal((await run(file)).code, 0);
      await deleteElsewhere(app, 2);
      const withNew = fileOf([sampleTerm(1), sampleTerm(2), sampleTerm(3), sampleTerm(4)]);
      const dry = await run(withNew, '--update', '--dry-run');
      const conflict =
        'conflict 2: deleted on the service since the file last matched it; not re-created (--force re-creates)';
      assert.equal(dry.code, 1, dry.stdout + dry.stderr);
      assert.equal(
        dry.stdout,
        [
          'unchanged 1',
          conflict,
          'unchanged 3',
          'created 4',
          `${withNew}: dry run, nothing changed: 1 created, 2 unchanged, 1 conflict, 0 rejected (4 terms)`,
          '',
        ].join('\n'),
      );
      const synced = await run(withNew, '--update');
      assert.equal(synced.code, 1, synced.stdout + synced.stderr);
      assert.equal(synced.stdout, dry.stdout.replace('dry run, nothing changed: ', ''));
      assert.deepEqual(await storedIds(app), [1, 3, 4]);

      const forcedDry = await run(withNew, '--update', '--force', '--dry-run');
      assert.equal(forcedDry.code, 0, forcedDry.stdout + forcedDry.stderr);
      assert.deepEqual(await storedIds(app), [1, 3, 4]);
      const forced = await run(withNew, '--update', '--force');
      assert.equal(forced.code, 0, forced.stdout + forced.stderr);
      assert.equal(
        forced.stdout,
        [
          'unchanged 1',
          'created 2 (--force: re-created a term deleted on the service)',
          'unchanged 3',
          'unchanged 4',
          `${withNew}: 1 created, 3 unchanged, 0 rejected (4 terms)`,
          '',
        ].join('\n'),
      );
      assert.equal(
        forcedDry.stdout,
        forced.stdout.replace(': 1 created', ': dry run, nothing changed: 1 created'),
      );
      assert.deepEqual((await storedIds(app)).sort(), [1, 2, 3, 4]);
    });

    test('an earlier revision matches too; a file changed since the deletion is a conflict naming its fields', async () => {
      assert.equal((await run(fileOf([sampleTerm(1), sampleTerm(2)]))).code, 0);
      const patched = await app.app.inject({
        method: 'PATCH',
        url: '/terms/1',
        payload: { definition: 'Changed on the page.' },
      });
      assert.equal(patched.statusCode, 200, patched.body);
      await deleteElsewhere(app, 1);
      await deleteElsewhere(app, 2);
      const file = fileOf([sampleTerm(1), sampleTerm(2, { definition: 'Edited in git.' })]);
      const result = await run(file, '--update');
      assert.equal(result.code, 1, result.stdout + result.stderr);
      assert.equal(
        result.stdout,
        [
          'conflict 1: deleted on the service since the file last matched it; not re-created (--force re-creates)',
          'conflict 2: deleted on the service, and the file changed definition since; not re-created (--force re-creates)',
          `${file}: 0 created, 2 conflicts, 0 rejected (2 terms)`,
          '',
        ].join('\n'),
      );
      assert.deepEqual(await storedIds(app), []);
    });

    test('--json marks the conflict "deleted": true; an id repeated later in the file is not created in its place', async () => {
      assert.equal((await run(fileOf([sampleTerm(1), sampleTerm(2)]))).code, 0);
      await deleteElsewhere(app, 2);
      const file = fileOf([
        sampleTerm(1),
        sampleTerm(2),
        sampleTerm(2, { definition: 'Again.' }),
        sampleTerm(5),
      ]);
      const result = await run(file, '--update', '--json');
      assert.equal(result.code, 1, result.stdout + result.stderr);
      assert.deepEqual(JSON.parse(result.stdout), [
        { id: 1, action: 'unchanged' },
        { id: 2, action: 'conflict', deleted: true },
        {
          id: 2,
          action: 'rejected',
          index: 2,
          detail: 'Duplicate ID 2 in the file (item 1).',
        },
        { id: 5, action: 'created' },
      ]);
      assert.match(result.stderr, /1 created, 1 unchanged, 1 conflict, 1 rejected \(4 terms\)/);
      assert.deepEqual(await storedIds(app), [1, 5]);
      const forced = await run(file, '--update', '--force', '--json');
      assert.deepEqual(JSON.parse(forced.stdout)[1], { id: 2, action: 'created', forced: true });
    });

    test('without --update the deletion is not looked at: the id is created again', async () => {
      assert.equal((await run(fileOf([sampleTerm(1)]))).code, 0);
      await deleteElsewhere(app, 1);
      const result = await run(fileOf([sampleTerm(1)]));
      assert.equal(result.code, 0, result.stdout + result.stderr);
      assert.match(result.stdout, /^created 1\n/);
    });
  });
}
