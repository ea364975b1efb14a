import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { tempDir } from '../helpers/backends.ts';
import { type ListeningApp, listenApp } from '../helpers/listening-app.ts';
import {
  type Browser,
  chromiumMissing,
  launchBrowser,
  unexpectedProblems,
  type WatchedPage,
  watchedPage,
} from './browser.ts';

/**
 * The page's import in Chromium (issue 32, point 7): a CSV file as well as a JSON one, the
 * same columns as `glossary import`, and each refused row named by its place in the file (a
 * CSV line, a JSON item, from 1) with the words the term form uses.
 */

const AXE = fs.readFileSync(
  new URL('../../node_modules/axe-core/axe.min.js', import.meta.url),
  'utf8',
);
const missing = chromiumMissing();
const skip = missing !== null && process.env.CI !== 'true';
if (skip) process.stderr.write(`NOTICE: browser tests skipped: ${missing}\n`);

async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  return (await page.evaluate(
    '(async () => (await axe.run(document)).violations.map((v) => v.id + ": " + v.nodes.map((n) => n.target.join(" ")).join(", ")))()',
  )) as string[];
}

describe('importing a file in the page, in Chromium', {
  skip: skip ? `browser tests skipped: ${missing}` : false,
}, () => {
  let browser: Browser;
  let glossary: ListeningApp;
  let watched: WatchedPage;
  let page: Page;
  let folder: string;

  before(async () => {
    if (missing) assert.fail(`${missing}: install Debian's chromium (see .ci/run)`);
    browser = await launchBrowser();
    folder = tempDir('glossary-import-');
  });
  after(async () => {
    await browser?.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });
  beforeEach(async () => {
    glossary = await listenApp();
    watched = await watchedPage(browser.context);
    page = watched.page;
  });
  afterEach(async () => {
    await page.close();
    await glossary.close();
    const foreign = watched.requests.filter((url) => !url.startsWith(`${glossary.url}/`));
    assert.deepEqual(foreign, [], 'requests to another host');
    assert.deepEqual(unexpectedProblems(watched), []);
  });

  async function importFile(name: string, text: string): Promise<void> {
    const file = path.join(folder, name);
    fs.writeFileSync(file, text);
    await page.goto(`${glossary.url}/`);
    await page
      .locator('#list-status')
      .filter({ hasText: /The glossary is empty|A to Z/ })
      .waitFor();
    await page.getByLabel('JSON or CSV file').setInputFiles(file);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
  }
  const status = () => page.locator('#import-status');
  async function rows(): Promise<string[][]> {
    await page.locator('#import-results tbody tr').first().waitFor();
    const cells = await page
      .locator('#import-results tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.children].map((cell) => cell.textContent ?? '')),
      );
    return cells;
  }
  const stored = async (id: number) => {
    const response = await fetch(`${glossary.url}/terms/${id}`);
    return response.status === 200 ? ((await response.json()) as Record<string, unknown>) : null;
  };

  test('a CSV file: its lines numbered as in the file, the form’s words for each refusal', async () => {
    const csv = [
      'id,term,definition,category,see_also',
      '1,Cache,"Keeps answers, for a while.",backend,2;3',
      '2,,Has no name.,backend,',
      '',
      '3,Queue,"Holds work',
      'until a worker takes it, ""first in, first out"".",backend,1',
      '4,Router,Sends requests on.,networking,',
      '5,Proxy,Stands between.,devops,1;x',
      '6,Worker,Takes work,from a queue.,backend,',
      'seven,Shard,A part of the data.,backend,',
      '1,Cache again,Another cache.,backend,',
      '',
    ].join('\r\n');
    await importFile('terms.csv', csv);
    await status().filter({ hasText: 'terms.csv: 2 created, 6 rejected.' }).waitFor();
    assert.deepEqual(await rows(), [
      ['Line 2', 'Added', 'Added as ID 1.'],
      ['Line 3', 'Not added', 'Give the term a name.'],
      ['Line 5', 'Added', 'Added as ID 3.'],
      ['Line 7', 'Not added', 'Choose a category: frontend, backend, devops, docs-as-code.'],
      ['Line 8', 'Not added', 'See also takes IDs: whole numbers.'],
      [
        'Line 9',
        'Not added',
        'This line has 6 cells, the header 5 columns: a comma may need quotes around its cell.',
      ],
      [
        'Line 10',
        'Not added',
        'An ID is a whole number between -9,007,199,254,740,991 and 9,007,199,254,740,991.',
      ],
      ['Line 11', 'Not added', 'ID 1 is used by an earlier row of the file.'],
    ]);
    assert.deepEqual((await stored(1))?.see_also, [2, 3]);
    assert.equal(
      (await stored(3))?.definition,
      // The line break inside the quotes as the file has it, as `glossary import` reads it.
      'Holds work\r\nuntil a worker takes it, "first in, first out".',
    );
    await page.locator('#list-status').filter({ hasText: '1–2 of 2 terms' }).waitFor();
    assert.deepEqual(await axeViolations(page), []);
  });

  test('a JSON file: items numbered from 1; files the page cannot read say why', async () => {
    const items = [
      { id: 1, term: 'Cache', definition: 'Keeps answers.', category: 'backend' },
      { id: 2, term: 'Queue', category: 'backend' },
      'not a term',
    ];
    await importFile('terms.json', JSON.stringify(items, null, 2));
    await status().filter({ hasText: 'terms.json: 1 created, 2 rejected.' }).waitFor();
    assert.deepEqual(await rows(), [
      ['Item 1', 'Added', 'Added as ID 1.'],
      ['Item 2', 'Not added', 'Write a definition.'],
      [
        'Item 3',
        'Not added',
        'This is not a term: an object with id, term, definition and category.',
      ],
    ]);

    for (const [name, text, words] of [
      ['empty.csv', '', 'empty.csv is empty.'],
      [
        'semicolons.csv',
        'id;term;definition;category\n1;A;B;backend\n',
        'semicolons.csv separates its columns with semicolons',
      ],
      [
        'columns.csv',
        'id,name,definition,category\n',
        'columns.csv: the column “name” is not one the glossary knows.',
      ],
      ['broken.json', '[\n  {"id": 1,\n', 'broken.json is not valid JSON'],
      [
        'quote.csv',
        'id,term,definition,category\n1,"A,B,backend\n',
        'the quote opened on line 2 is never closed',
      ],
    ] as const) {
      await importFile(name, text);
      await status().filter({ hasText: words }).waitFor();
    }
  });
});
