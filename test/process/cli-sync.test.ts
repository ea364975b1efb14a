import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { sampleTerm } from '../helpers/app.ts';
import { backends, tempDir } from '../helpers/backends.ts';
import { type ListeningApp, listenApp } from '../helpers/listening-app.ts';
import { runCli } from '../helpers/run-cli.ts';

/**
 * `glossary import --update [--force] [--prune] [--dry-run] [--json]`: a glossary file kept in
 * git, synced by a CI job that runs again and again while people edit the same terms on the
 * page (here: through the API, as the page does).
 */

function fileOf(terms: unknown[]): string {
  const file = path.join(tempDir('glossary-sync-'), 'glossary.json');
  fs.writeFileSync(file, JSON.stringify(terms));
  return file;
}

async function stored(app: ListeningApp): Promise<unknown[]> {
  return (await app.app.inject({ url: '/terms' })).json() as unknown[];
}

async function historyLength(app: ListeningApp, id: number): Promise<number> {
  return ((await app.app.inject({ url: `/terms/${id}/history` })).json() as unknown[]).length;
}

/** Another person's edit, made through the API after the file last matched the term. */
async function editElsewhere(app: ListeningApp, id: number, patch: object): Promise<void> {
  const response = await app.app.inject({ method: 'PATCH', url: `/terms/${id}`, payload: patch });
  assert.equal(response.statusCode, 200, response.body);
}

for (const backend of backends()) {
  describe(`glossary import: syncing a file kept in git (${backend.name})`, () => {
    let app: ListeningApp;
    beforeEach(async () => {
      app = await listenApp(backend);
    });
    afterEach(() => app.close());

    const run = (file: string, ...flags: string[]) =>
      runCli(['import', file, '--url', app.url, ...flags]);

    test('without a flag an existing id is an error (exit 1); --skip-existing makes it none (exit 0)', async () => {
      const file = fileOf([sampleTerm(1), sampleTerm(2)]);
      assert.equal((await run(file)).code, 0);
      const again = await run(file);
      assert.equal(again.code, 1);
      assert.match(again.stdout, /0 created, 2 rejected/);
      const skipped = await run(file, '--skip-existing');
      assert.equal(skipped.code, 0, skipped.stdout);
      assert.equal(
        skipped.stdout,
        `skipped 1: already there\nskipped 2: already there\n${file}: 0 created, 2 skipped (already there), 0 rejected (2 terms)\n`,
      );
    });

    test('--update lists each term created, updated (with the fields changed) and unchanged, then the summary', async () => {
      await run(fileOf([sampleTerm(1), sampleTerm(2), sampleTerm(3)]));
      const edited = [
        sampleTerm(1),
        sampleTerm(2, { definition: 'A better definition.', see_also: [1] }),
        sampleTerm(3, { category: 'devops', aliases: ['T3'] }),
        sampleTerm(4),
      ];
      const file = fileOf(edited);
      const first = await run(file, '--update');
      assert.equal(first.code, 0, first.stdout + first.stderr);
      assert.equal(
        first.stdout,
        [
          'unchanged 1',
          'updated 2: definition, see_also',
          'updated 3: category, aliases',
          'created 4',
          `${file}: 1 created, 2 updated, 1 unchanged, 0 rejected (4 terms)`,
          '',
        ].join('\n'),
      );
      assert.deepEqual(await stored(app), edited);
      assert.equal(await historyLength(app, 1), 1, 'an unchanged term is not rewritten');
      const second = await run(file, '--update');
      assert.equal(second.code, 0);
      assert.match(second.stdout, /^unchanged 1\nunchanged 2\nunchanged 3\nunchanged 4\n/);
      assert.match(second.stdout, /0 created, 4 unchanged, 0 rejected/);
      assert.equal(await historyLength(app, 2), 2);
    });

    test('a term changed through the API since the file last matched it is a conflict: reported, kept, exit 1; the rest still syncs', async () => {
      const original = [sampleTerm(1), sampleTerm(2), sampleTerm(3)];
      await run(fileOf(original));
      await editElsewhere(app, 2, { definition: 'Edited on the page.', see_also: [3] });
      // The file moves on for term 1 and gains term 4; for term 2 it still holds what it had.
      const file = fileOf([
        sampleTerm(1, { term: 'One' }),
        sampleTerm(2),
        sampleTerm(3),
        sampleTerm(4),
      ]);
      const sync = await run(file, '--update');
      assert.equal(sync.code, 1, sync.stdout + sync.stderr);
      assert.equal(
        sync.stdout,
        [
          'updated 1: term',
          'conflict 2: definition, see_also changed on the service since the file last matched it; not overwritten (--force overwrites)',
          'unchanged 3',
          'created 4',
          `${file}: 1 created, 1 updated, 1 unchanged, 1 conflict, 0 rejected (4 terms)`,
          '',
        ].join('\n'),
      );
      const after = (await stored(app)) as { id: number; term: string; definition: string }[];
      assert.equal(after.find((term) => term.id === 2)?.definition, 'Edited on the page.');
      assert.equal(after.find((term) => term.id === 1)?.term, 'One');
      assert.equal(after.length, 4);

      const dry = await run(file, '--update', '--force', '--dry-run');
      assert.equal(dry.code, 0, dry.stdout);
      assert.match(
        dry.stdout,
        /^unchanged 1\nupdated 2: definition, see_also \(--force: overwrote the service's change\)\n/,
      );
      assert.match(dry.stdout, /dry run, nothing changed: 0 created, 1 updated, 3 unchanged/);
      assert.equal(await historyLength(app, 2), 2, 'a dry run writes nothing');

      const forced = await run(file, '--update', '--force');
      assert.equal(forced.code, 0, forced.stdout + forced.stderr);
      assert.match(forced.stdout, /0 created, 1 updated, 3 unchanged, 0 rejected/);
      assert.deepEqual(
        ((await stored(app)) as { id: number }[]).find((term) => term.id === 2),
        sampleTerm(2),
      );
    });

    test('a file edit of a term the service did not change since is an update, not a conflict', async () => {
      await run(fileOf([sampleTerm(1)]));
      await run(fileOf([sampleTerm(1, { definition: 'Second.' })]), '--update');
      const third = await run(fileOf([sampleTerm(1, { definition: 'Third.' })]), '--update');
      assert.equal(third.code, 0, third.stdout);
      assert.match(third.stdout, /^updated 1: definition\n/);
    });

    test('the revision the file matches is found past the first page of a long history', async () => {
      await run(fileOf([sampleTerm(1)]));
      for (let edit = 1; edit <= 120; edit++)
        await editElsewhere(app, 1, { definition: `Edit ${edit}.` });
      const sync = await run(fileOf([sampleTerm(1)]), '--update');
      assert.equal(sync.code, 1, sync.stdout);
      assert.match(sync.stdout, /^conflict 1: definition changed on the service/);
    });

    test('--prune deletes the terms the file no longer holds; with --dry-run it only lists them', async () => {
      await run(fileOf([sampleTerm(1), sampleTerm(2), sampleTerm(3), sampleTerm(4)]));
      const file = fileOf([sampleTerm(1), sampleTerm(3)]);
      const dry = await run(file, '--update', '--prune', '--dry-run');
      assert.equal(dry.code, 0, dry.stdout + dry.stderr);
      assert.equal(
        dry.stdout,
        [
          'unchanged 1',
          'unchanged 3',
          'deleted 2',
          'deleted 4',
          `${file}: dry run, nothing changed: 0 created, 2 unchanged, 2 deleted, 0 rejected (2 terms)`,
          '',
        ].join('\n'),
      );
      assert.equal((await stored(app)).length, 4);

      const pruned = await run(file, '--update', '--prune');
      assert.equal(pruned.code, 0, pruned.stdout + pruned.stderr);
      assert.match(pruned.stdout, /\ndeleted 2\ndeleted 4\n.*2 deleted, 0 rejected/);
      assert.deepEqual(await stored(app), [sampleTerm(1), sampleTerm(3)]);
      assert.equal((await app.app.inject({ url: '/terms/2' })).statusCode, 404);
    });

    test("the service's warnings on a replacement or a deletion end its line (and are in --json)", async () => {
      await run(fileOf([sampleTerm(1), sampleTerm(2, { see_also: [1] })]));
      const file = fileOf([sampleTerm(2, { see_also: [1, 999] })]);
      const dry = await run(file, '--update', '--prune', '--dry-run', '--json');
      assert.deepEqual(JSON.parse(dry.stdout), [
        { id: 2, action: 'updated', changes: ['see_also'] },
        { id: 1, action: 'deleted' },
      ]);
      const sync = await run(file, '--update', '--prune');
      assert.equal(sync.code, 0, sync.stdout + sync.stderr);
      assert.equal(
        sync.stdout,
        [
          'updated 2: see_also (warning: see_also: no term has id 999.)',
          'deleted 1 (warning: term 2 links to this term.)',
          `${file}: 0 created, 1 updated, 1 deleted, 0 rejected (1 terms)`,
          '',
        ].join('\n'),
      );
      await run(fileOf([sampleTerm(1)]));
      const json = await run(
        fileOf([sampleTerm(2, { see_also: [1, 998] })]),
        '--update',
        '--prune',
        '--json',
      );
      assert.deepEqual(JSON.parse(json.stdout), [
        {
          id: 2,
          action: 'updated',
          changes: ['see_also'],
          warnings: ['see_also: no term has id 998.'],
        },
        { id: 1, action: 'deleted', warnings: ['term 2 links to this term.'] },
      ]);
    });

    test('--prune keeps a term whose line in the file was rejected, and refuses a file of no terms', async () => {
      await run(fileOf([sampleTerm(1), sampleTerm(2)]));
      const file = fileOf([sampleTerm(1), sampleTerm(2, { category: 'web' })]);
      const sync = await run(file, '--update', '--prune');
      assert.equal(sync.code, 1);
      assert.doesNotMatch(sync.stdout, /deleted/);
      const empty = await run(fileOf([]), '--update', '--prune');
      assert.equal(empty.code, 1);
      assert.match(
        empty.stderr,
        /holds no terms: --prune would delete every term; nothing done\n$/,
      );
      assert.equal((await stored(app)).length, 2);
    });

    test('--json prints the outcomes as one JSON array on stdout, the summary on stderr', async () => {
      await run(fileOf([sampleTerm(1), sampleTerm(2), sampleTerm(3), sampleTerm(9)]));
      await editElsewhere(app, 3, { term: 'Three' });
      const file = fileOf([
        sampleTerm(1),
        sampleTerm(2, { definition: 'Changed.' }),
        sampleTerm(3),
        sampleTerm(4),
        sampleTerm(5, { category: 'web' }),
      ]);
      const sync = await run(file, '--update', '--prune', '--json');
      assert.equal(sync.code, 1, sync.stderr);
      assert.deepEqual(JSON.parse(sync.stdout), [
        { id: 1, action: 'unchanged' },
        { id: 2, action: 'updated', changes: ['definition'] },
        { id: 3, action: 'conflict', changes: ['term'] },
        { id: 4, action: 'created' },
        {
          id: 5,
          action: 'rejected',
          index: 4,
          detail:
            "category: value is not a valid enumeration member; permitted: 'frontend', 'backend', 'devops', 'docs-as-code'",
        },
        { id: 9, action: 'deleted' },
      ]);
      assert.equal(
        sync.stderr,
        `${file}: 1 created, 1 updated, 1 unchanged, 1 conflict, 1 deleted, 1 rejected (5 terms)\n`,
      );
      const nothing = await run(fileOf([sampleTerm(1)]), '--skip-existing', '--json');
      assert.deepEqual(JSON.parse(nothing.stdout), [{ id: 1, action: 'skipped' }]);
    });

    test('--update still reports invalid items and ids repeated in the file', async () => {
      await run(fileOf([sampleTerm(1)]));
      const result = await run(
        fileOf([sampleTerm(1, { term: 'One' }), sampleTerm(2, { category: 'web' }), sampleTerm(1)]),
        '--update',
      );
      assert.equal(result.code, 1);
      assert.match(result.stdout, /0 created, 1 updated, 2 rejected/);
      assert.match(result.stdout, /item 1 \(id 2\): category: value is not a valid enumeration/);
      assert.match(result.stdout, /item 2 \(id 1\): Duplicate ID 1 in the file \(item 0\)\./);
    });

    test('--dry-run reports what would happen and changes nothing', async () => {
      await run(fileOf([sampleTerm(1), sampleTerm(2)]));
      const before = await stored(app);
      const file = fileOf([
        sampleTerm(1),
        sampleTerm(2, { term: 'Two' }),
        sampleTerm(3),
        sampleTerm(4, { category: 'web' }),
      ]);
      const dry = await run(file, '--update', '--dry-run');
      assert.equal(dry.code, 1, 'an invalid item is an error in a dry run too');
      assert.match(
        dry.stdout,
        /dry run, nothing changed: 1 created, 1 updated, 1 unchanged, 1 rejected \(4 terms\)/,
      );
      assert.deepEqual(await stored(app), before);
      const plain = await run(fileOf([sampleTerm(5)]), '--dry-run');
      assert.equal(plain.code, 0);
      assert.deepEqual(await stored(app), before);
    });

    test('--skip-existing with --update, and --prune or --force without --update, are usage errors', async () => {
      const file = fileOf([sampleTerm(1)]);
      const both = await run(file, '--skip-existing', '--update');
      assert.equal(both.code, 2);
      assert.match(both.stderr, /cannot be used with/);
      for (const flag of ['--prune', '--force']) {
        const alone = await run(file, flag);
        assert.equal(alone.code, 2);
        assert.equal(alone.stderr, `glossary: option '${flag}' needs '--update'\n`);
      }
      assert.deepEqual(await stored(app), []);
    });
  });
}
