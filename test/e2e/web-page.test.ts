import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { newToken } from '../../src/glossary/access.ts';
import { eventually } from '../helpers/eventually.ts';
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
 * The page in Chromium (search-and-reading.md, "The web page"; editing-and-access.md, "The web
 * page and the CLI"): reading a glossary of 100,000 terms a page at a time, and correcting a
 * small one. Every test checks that the page asked nothing of another host, asked the
 * service for no unpaged list, and logged no error beyond Chromium's line for each 4xx answer
 * the test provoked.
 */

const SAMPLE = JSON.parse(
  fs.readFileSync(new URL('../fixtures/sample-glossary.json', import.meta.url), 'utf8'),
) as { id: number; term: string; definition: string; category: string; see_also: number[] }[];
const AXE = fs.readFileSync(
  new URL('../../node_modules/axe-core/axe.min.js', import.meta.url),
  'utf8',
);

const missing = chromiumMissing();
const skip = missing !== null && process.env.CI !== 'true';
if (skip) process.stderr.write(`NOTICE: browser tests skipped: ${missing}\n`);

const WORDS = ['cache', 'queue', 'router', 'kernel', 'schema', 'index', 'render', 'deploy'];
const CATEGORIES = ['frontend', 'backend', 'devops', 'docs-as-code'];
const MANY = 100_000;

/** 100,000 terms named after the words above, and a few the tests look for. */
interface NewTerm {
  id: number;
  term: string;
  definition: string;
  category: string;
  see_also: number[];
}

function manyTerms(): NewTerm[] {
  const terms: NewTerm[] = Array.from({ length: MANY }, (_, i) => ({
    id: i + 1,
    term: `${WORDS[i % 8]} ${WORDS[Math.floor(i / 8) % 8]} ${i + 1}`,
    definition: `The ${WORDS[i % 8]} of the ${WORDS[Math.floor(i / 8) % 8]} number ${i + 1}.`,
    category: CATEGORIES[i % 4] as string,
    see_also: [],
  }));
  terms.push(
    {
      id: MANY + 1,
      term: 'Zookeeper',
      definition: 'Coordinates a cluster; see https://zookeeper.apache.org for more.',
      category: 'devops',
      see_also: [],
    },
    {
      id: MANY + 2,
      term: 'Ångström',
      definition: 'A unit of length, 0.1 nm.',
      category: 'docs-as-code',
      see_also: [],
    },
    {
      id: MANY + 3,
      term: 'Kubernetes',
      definition: 'Runs containers across machines.',
      category: 'devops',
      see_also: [MANY + 1],
    },
  );
  return terms;
}

async function load(url: string, terms: unknown[]): Promise<void> {
  for (let start = 0; start < terms.length; start += 10_000) {
    const response = await fetch(`${url}/terms/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(terms.slice(start, start + 10_000)),
    });
    assert.equal(response.status, 207);
  }
}

/** Polls `condition` until it holds; the page's CSP forbids `waitForFunction`'s eval. */
/** axe-core's violations on the page as it is now. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = (await page.evaluate(
    '(async () => (await axe.run(document)).violations.map((v) => v.id + ": " + v.nodes.map((n) => n.target.join(" ")).join(", ")))()',
  )) as string[];
  return result;
}

describe('the page over 100,000 terms, in Chromium', {
  skip: skip ? `browser tests skipped: ${missing}` : false,
}, () => {
  let browser: Browser;
  let glossary: ListeningApp;
  let watched: WatchedPage;
  let page: Page;

  before(async () => {
    if (missing) assert.fail(`${missing}: install Debian's chromium (see .ci/run)`);
    browser = await launchBrowser();
    glossary = await listenApp();
    await load(glossary.url, manyTerms());
  });
  after(async () => {
    await browser?.close();
    await glossary?.close();
  });
  beforeEach(async () => {
    watched = await watchedPage(browser.context);
    page = watched.page;
  });
  afterEach(async () => {
    await page.close();
    const foreign = watched.requests.filter((url) => !url.startsWith(`${glossary.url}/`));
    assert.deepEqual(foreign, [], 'requests to another host');
    const unpaged = watched.requests.filter((url) => {
      const { pathname, searchParams } = new URL(url);
      return pathname === '/terms' && !searchParams.has('limit');
    });
    assert.deepEqual(unpaged, [], 'a request for an unpaged list');
    assert.deepEqual(unexpectedProblems(watched), []);
  });

  const termLinks = () => page.getByRole('list', { name: 'Terms' }).getByRole('link');
  const status = () => page.locator('#list-status');
  const detailHeading = () => page.locator('#detail-title');

  test('opens on the first page, A to Z, with definitions, and axe finds nothing', async () => {
    await page.goto(`${glossary.url}/`);
    await status().filter({ hasText: '1–50 of 100,003 terms, A to Z' }).waitFor();
    assert.equal(await termLinks().count(), 50);
    const names = await termLinks().allTextContents();
    assert.deepEqual(
      names,
      [...names].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1)),
    );
    assert.equal(names[0]?.split(' ')[0], 'cache');
    const excerpt = page.locator('#terms li .excerpt').first();
    assert.match((await excerpt.textContent()) ?? '', /^The cache of the /);
    assert.deepEqual(await axeViolations(page), []);
  });

  test('a term far down the alphabet is reachable: Z, the letter before it, then Other', async () => {
    await page.goto(`${glossary.url}/`);
    await status().filter({ hasText: 'A to Z' }).waitFor();
    await page.getByRole('button', { name: 'Letter Z' }).click();
    await status().filter({ hasText: 'Starting with “Z”: 1–1 of 1 term.' }).waitFor();
    assert.deepEqual(await termLinks().allTextContents(), ['Zookeeper']);
    await termLinks().first().click();
    await detailHeading().filter({ hasText: 'Zookeeper' }).waitFor();
    const link = page.locator('#detail .definition a');
    assert.equal(await link.getAttribute('href'), 'https://zookeeper.apache.org');
    // Before Z, past the empty letters Y to T: the last page of S.
    await page.getByRole('button', { name: 'Previous' }).click();
    await status()
      .filter({ hasText: 'Starting with “S”: 12,451–12,500 of 12,500 terms.' })
      .waitFor();
    assert.equal(await termLinks().count(), 50);
    assert.match((await termLinks().last().textContent()) ?? '', /^schema /);
    await page.getByRole('button', { name: 'Other letters' }).click();
    await status().filter({ hasText: 'Other letters: 1–1 of 1 term.' }).waitFor();
    assert.deepEqual(await termLinks().allTextContents(), ['Ångström']);
  });

  test('a reload or a shared link shows the same view and the same term', async () => {
    await page.goto(`${glossary.url}/?from=r&offset=100&term=${MANY + 3}&category=devops`);
    await detailHeading().filter({ hasText: 'Kubernetes' }).waitFor();
    await status().filter({ hasText: 'Starting with “R”: 101–150 of' }).waitFor();
    assert.equal(await page.locator('#category').inputValue(), 'devops');
    const before = await termLinks().allTextContents();
    assert.ok(before.every((name) => name >= 'r'));
    await page.getByRole('button', { name: 'Next' }).click();
    await status().filter({ hasText: '151–200 of' }).waitFor();
    await page.reload();
    await status().filter({ hasText: 'Starting with “R”: 151–200 of' }).waitFor();
    await detailHeading().filter({ hasText: 'Kubernetes' }).waitFor();
    await page.goBack();
    await status().filter({ hasText: '101–150 of' }).waitFor();
    // See-also terms are shown by name, as links.
    await page.locator('#detail .see-also a', { hasText: 'Zookeeper' }).waitFor();
  });

  test('the search box finds words as you type, even misspelt, and marks them', async () => {
    await page.clock.install();
    await page.goto(`${glossary.url}/`);
    await status().filter({ hasText: 'A to Z' }).waitFor();
    await page.getByRole('searchbox', { name: 'Search' }).pressSequentially('kuberntes');
    const searches = () => watched.requests.filter((url) => url.includes('q='));
    assert.deepEqual(searches(), [], 'no request while typing');
    await page.clock.runFor(300);
    await status()
      .filter({ hasText: /^1 term found for “kuberntes”\.$/ })
      .waitFor();
    assert.deepEqual(await termLinks().allTextContents(), ['Kubernetes']);
    assert.equal(await page.locator('#terms mark').first().textContent(), 'Kubernetes');
    assert.equal(searches().length, 1);
    assert.match(page.url(), /\?q=kuberntes$/);
    await page.reload();
    await status().filter({ hasText: 'found for “kuberntes”' }).waitFor();
    assert.equal(await page.getByRole('searchbox', { name: 'Search' }).inputValue(), 'kuberntes');
  });

  test('dark mode and a 390 px screen keep axe at zero and nothing overflows', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${glossary.url}/?q=cache%20queue&term=1`);
    await detailHeading().filter({ hasText: 'cache cache 1' }).waitFor();
    await status().filter({ hasText: 'found for' }).waitFor();
    const overflow = await page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    assert.equal(overflow, 0);
    assert.deepEqual(await axeViolations(page), []);
  });

  test('downloads hold the whole current view, fetched a page at a time', async () => {
    await page.goto(`${glossary.url}/?q=zookeeper`);
    await status().filter({ hasText: '1 term found' }).waitFor();
    await page.locator('.downloads summary').click();
    for (const [format, check] of [
      [
        'JSON',
        (text: string) =>
          assert.deepEqual(
            JSON.parse(text).map((t: { id: number }) => t.id),
            [MANY + 1],
          ),
      ],
      [
        'CSV',
        (text: string) =>
          assert.match(
            text,
            /^id,term,definition,category,see_also,aliases,avoid\r\n100001,Zookeeper,/,
          ),
      ],
      ['Markdown', (text: string) => assert.match(text, /### <a id="term-100001"><\/a>Zookeeper/)],
    ] as const) {
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: format, exact: true }).click();
      const file = await (await download).path();
      check(fs.readFileSync(file, 'utf8'));
    }
  });
});

describe('correcting a glossary in the page, in Chromium', {
  skip: skip ? `browser tests skipped: ${missing}` : false,
}, () => {
  let browser: Browser;
  let glossary: ListeningApp;
  let watched: WatchedPage;
  let page: Page;

  before(async () => {
    if (missing) assert.fail(`${missing}: install Debian's chromium (see .ci/run)`);
    browser = await launchBrowser();
  });
  after(() => browser?.close());
  beforeEach(async () => {
    glossary = await listenApp();
    await load(glossary.url, SAMPLE);
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

  const dialog = () => page.locator('dialog[open]');
  const detailHeading = () => page.locator('#detail-title');
  const bulkPosts = () => watched.requests.filter((url) => url.endsWith('/terms/bulk'));
  async function stored(id: number) {
    const response = await fetch(`${glossary.url}/terms/${id}`);
    return response.status === 200
      ? ((await response.json()) as { term: string; definition: string })
      : null;
  }

  test('a new term: a free id is suggested, people-words for mistakes, one request per click', async () => {
    await page.goto(`${glossary.url}/`);
    await page.getByRole('button', { name: 'New term' }).click();
    const id = dialog().getByLabel('ID', { exact: true });
    await eventually(
      async () => (await id.inputValue()) === '17',
      () => 'the free id 17 is suggested',
    );
    // Text with no visible character is as blank as none (glossary/term.ts isBlank).
    await dialog().getByLabel('Name').fill('\u200b\ufeff\u2060');
    await dialog().getByLabel('Definition').fill('\u3164\u0301\u202e');
    await dialog().getByRole('button', { name: 'Add term' }).click();
    await dialog().getByText('Give the term a name.').waitFor();
    await dialog().getByText('Write a definition.').waitFor();
    await dialog().getByText('Choose a category.').waitFor();
    assert.deepEqual(bulkPosts(), [], 'nothing sent while the form is incomplete');
    await id.fill('3');
    await dialog().getByLabel('Name').fill('Sharding');
    await dialog().getByLabel('Definition').fill('Splitting data across databases.');
    await dialog().getByLabel('Category').selectOption('backend');
    await dialog().getByRole('button', { name: 'Add term' }).click();
    await dialog().getByText('ID 3 is taken: 17 is free.').waitFor();
    assert.equal((await stored(3))?.term, 'Rate limiting', 'the taken id was not overwritten');
    assert.equal(await id.inputValue(), '17');
    await dialog().getByRole('button', { name: 'Add term' }).dblclick();
    await detailHeading().filter({ hasText: 'Sharding' }).waitFor();
    assert.equal(bulkPosts().length, 2, 'the double click sent one request');
    assert.equal((await stored(17))?.term, 'Sharding');
    assert.match(page.url(), /term=17/);
  });

  test('a form filled before the free id comes: Add term waits for it; an id typed first stays', async () => {
    // The free id is asked of the service as the form opens; hold its answer back.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let asked = 0;
    await page.route(
      (url) => url.searchParams.get('sort') === '-id',
      async (route) => {
        asked += 1;
        await held;
        await route.continue();
      },
    );
    await page.goto(`${glossary.url}/`);
    await page.getByRole('button', { name: 'New term' }).click();
    await eventually(async () => asked === 1, 'the free id asked for');
    // The name has the focus at once: typing needs no click.
    await page.keyboard.type('Sharding');
    await dialog().getByLabel('Definition').fill('Splitting data across databases.');
    await dialog().getByLabel('Category').selectOption('backend');
    await dialog().getByRole('button', { name: 'Add term' }).click();
    assert.equal(await dialog().getByLabel('ID', { exact: true }).inputValue(), '');
    assert.equal(await dialog().locator('#form-id-error').textContent(), '', 'no "give an ID"');
    release();
    await detailHeading().filter({ hasText: 'Sharding' }).waitFor();
    assert.equal((await stored(17))?.term, 'Sharding');

    // An id typed before the free one comes is the person's: it is not overwritten.
    const answered = page.waitForResponse(
      (r) => new URL(r.url()).searchParams.get('sort') === '-id',
    );
    await page.getByRole('button', { name: 'New term' }).click();
    const id = dialog().getByLabel('ID', { exact: true });
    await id.fill('40');
    await answered;
    assert.equal(asked, 2);
    assert.equal(await id.inputValue(), '40');
    await dialog().getByLabel('Name').fill('Replica');
    await dialog().getByLabel('Definition').fill('A copy of a database kept in step.');
    await dialog().getByLabel('Category').selectOption('backend');
    await dialog().getByRole('button', { name: 'Add term' }).click();
    await detailHeading().filter({ hasText: 'Replica' }).waitFor();
    assert.equal((await stored(40))?.term, 'Replica');
  });

  test('edit a term; a change made meanwhile by someone else is not overwritten', async () => {
    await page.goto(`${glossary.url}/?term=1`);
    await detailHeading().filter({ hasText: 'API gateway' }).waitFor();
    await page.locator('#detail').getByRole('button', { name: 'Edit' }).click();
    await dialog().getByLabel('Definition').fill('The one door to the backend.');
    await dialog().getByRole('button', { name: 'Save changes' }).click();
    await page
      .locator('#detail .definition', { hasText: 'The one door to the backend.' })
      .waitFor();
    assert.equal((await stored(1))?.definition, 'The one door to the backend.');

    await page.locator('#detail').getByRole('button', { name: 'Edit' }).click();
    await fetch(`${glossary.url}/terms/1`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ definition: 'Changed elsewhere.' }),
    });
    await dialog().getByLabel('Name').fill('API gateway (mine)');
    await dialog().getByRole('button', { name: 'Save changes' }).click();
    // Their version is shown beside the draft (web-page-editing.test.ts follows it further).
    await dialog().getByText('Someone else saved this term while you edited it').waitFor();
    assert.equal((await stored(1))?.term, 'API gateway');
  });

  test('delete asks first; the history brings the term back, and older versions', async () => {
    await page.goto(`${glossary.url}/?term=2`);
    await detailHeading().filter({ hasText: 'Load balancer' }).waitFor();
    await page.locator('#detail').getByRole('button', { name: 'Delete' }).click();
    await dialog().getByRole('button', { name: 'Keep it' }).click();
    assert.ok(await stored(2), 'kept');
    await page.locator('#detail').getByRole('button', { name: 'Delete' }).click();
    await dialog().getByText('“Load balancer” will be removed').waitFor();
    await dialog().getByRole('button', { name: 'Delete' }).click();
    await detailHeading().filter({ hasText: 'This term was deleted' }).waitFor();
    assert.equal(await stored(2), null);
    await page.getByRole('button', { name: 'Bring back as it was' }).click();
    await detailHeading().filter({ hasText: 'Load balancer' }).waitFor();
    assert.ok(await stored(2));

    await page.locator('#detail').getByRole('button', { name: 'History' }).click();
    const versions = page.locator('.history-list li');
    await eventually(
      async () => (await versions.count()) === 3,
      () => 'three history entries',
    );
    assert.match((await versions.first().textContent()) ?? '', /^Restored/);
    await versions.last().getByRole('button', { name: 'Restore this version' }).click();
    await page
      .locator('#detail .definition', { hasText: 'Distributes incoming traffic' })
      .waitFor();
  });

  test('a long history comes twenty entries at a time, older ones on request', async () => {
    for (let i = 0; i < 44; i += 1) {
      await fetch(`${glossary.url}/terms/3`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify({ definition: `Version ${i}.` }),
      });
    }
    await page.goto(`${glossary.url}/?term=3`);
    await page.locator('#detail').getByRole('button', { name: 'History' }).click();
    const versions = page.locator('.history-list li');
    const older = page.getByRole('button', { name: 'Show older changes' });
    const count = async (n: number) =>
      eventually(
        async () => (await versions.count()) === n,
        () => `${n} history entries`,
      );
    await count(20);
    await page.getByText('25 older').waitFor();
    await older.click();
    await count(40);
    await older.click();
    await count(45);
    assert.equal(await older.isVisible(), false);
    assert.match((await versions.first().textContent()) ?? '', /Version 43\./);
    assert.match((await versions.last().textContent()) ?? '', /^Created/);
    // Every entry but the newest can be brought back, on every page.
    assert.equal(await page.getByRole('button', { name: 'Restore this version' }).count(), 44);
  });

  test('when writes need a token the page asks for one and keeps it for the tab', async () => {
    const { token, stored: kept } = newToken('alice', 'write');
    await glossary.store.addToken(kept);
    const reader = newToken('bob', 'read-only');
    await glossary.store.addToken(reader.stored);
    await page.goto(`${glossary.url}/?term=4`);
    await detailHeading().filter({ hasText: 'Idempotency' }).waitFor();
    await page.locator('#detail').getByRole('button', { name: 'Delete' }).click();
    await dialog().getByRole('button', { name: 'Delete' }).click();
    const ask = page.getByRole('dialog', { name: 'Token needed' });
    await ask.getByText('This glossary needs a token for that.').waitFor();
    await ask.getByLabel('Token').fill(reader.token);
    await ask.getByRole('button', { name: 'Use token' }).click();
    await ask.getByText('Your token may only read.').waitFor();
    await ask.getByLabel('Token').fill(token);
    await ask.getByRole('button', { name: 'Use token' }).click();
    await detailHeading().filter({ hasText: 'This term was deleted' }).waitFor();
    const history = (await (await fetch(`${glossary.url}/terms/4/history`)).json()) as {
      by: string;
    }[];
    assert.equal(history[0]?.by, 'alice');
    await page.reload();
    await page.getByRole('button', { name: 'Bring back as it was' }).click();
    await detailHeading().filter({ hasText: 'Idempotency' }).waitFor();
  });

  test('importing a JSON file shows the result of each item', async () => {
    await page.goto(`${glossary.url}/`);
    const file = new URL('../fixtures/sample-glossary.json', import.meta.url).pathname;
    await page.locator('#import-file').setInputFiles(file);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.locator('#import-status').filter({ hasText: '0 created, 16 rejected.' }).waitFor();
    assert.equal(await page.locator('#import-results tbody tr').count(), 16);
  });

  test('everything works from the keyboard', async () => {
    await page.goto(`${glossary.url}/`);
    await page.locator('#list-status').filter({ hasText: 'A to Z' }).waitFor();
    const focused = () => page.locator(':focus');
    async function tabTo(name: string): Promise<void> {
      for (let presses = 0; presses < 60; presses += 1) {
        await page.keyboard.press('Tab');
        if (
          (
            (await focused()
              .textContent()
              .catch(() => '')) ?? ''
          ).trim() === name
        )
          return;
      }
      assert.fail(`Tab never reached ${name}`);
    }
    await tabTo('API gateway');
    await page.keyboard.press('Enter');
    await detailHeading().filter({ hasText: 'API gateway' }).waitFor();
    assert.equal(await focused().getAttribute('id'), 'detail');
    await tabTo('Load balancer');
    await page.keyboard.press('Enter');
    await detailHeading().filter({ hasText: 'Load balancer' }).waitFor();
    await page.goBack();
    await detailHeading().filter({ hasText: 'API gateway' }).waitFor();
  });
});
