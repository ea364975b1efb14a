import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { sampleTerm } from '../helpers/app.ts';
import { tempDir } from '../helpers/backends.ts';
import { type ListeningApp, listenApp } from '../helpers/listening-app.ts';
import { runCli } from '../helpers/run-cli.ts';

/**
 * `glossary import --skip-existing | --update | --dry-run`: a glossary file kept in git, synced
 * by a CI job that runs again and again.
 */

function fileOf(terms: unknown[]): string {
  const file = path.join(tempDir('glossary-sync-'), 'glossary.json');
  fs.writeFileSync(file, JSON.stringify(terms));
  return file;
}

async function stored(app: ListeningApp): Promise<unknown[]> {
  return (await (await fetch(`${app.url}/terms`)).json()) as unknown[];
}

async function historyLength(app: ListeningApp, id: number): Promise<number> {
  return ((await (await fetch(`${app.url}/terms/${id}/history`)).json()) as unknown[]).length;
}

describe('glossary import: syncing a file kept in git', () => {
  let app: ListeningApp;
  beforeEach(async () => {
    app = await listenApp();
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
    assert.match(skipped.stdout, /0 created, 2 skipped \(already there\), 0 rejected \(2 terms\)/);
  });

  test('--update replaces what differs, leaves the rest, and a second run changes nothing', async () => {
    await run(fileOf([sampleTerm(1), sampleTerm(2), sampleTerm(3)]));
    const edited = [
      sampleTerm(1),
      sampleTerm(2, { definition: 'A better definition.' }),
      sampleTerm(3, { see_also: [1] }),
      sampleTerm(4),
    ];
    const file = fileOf(edited);
    const first = await run(file, '--update');
    assert.equal(first.code, 0, first.stdout + first.stderr);
    assert.match(first.stdout, /1 created, 2 updated, 1 unchanged, 0 rejected \(4 terms\)/);
    assert.deepEqual(await stored(app), edited);
    assert.equal(await historyLength(app, 1), 1, 'an unchanged term is not rewritten');
    const second = await run(file, '--update');
    assert.equal(second.code, 0);
    assert.match(second.stdout, /0 created, 4 unchanged, 0 rejected/);
    assert.equal(await historyLength(app, 2), 2);
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

  test('--skip-existing and --update together is a usage error', async () => {
    const both = await run(fileOf([sampleTerm(1)]), '--skip-existing', '--update');
    assert.equal(both.code, 2);
    assert.match(both.stderr, /cannot be used with/);
  });
});
