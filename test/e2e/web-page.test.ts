import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type ListeningApp, listenApp } from '../helpers/listening-app.ts';
import {
  type Browser,
  chromiumMissing,
  launchBrowser,
  unexpectedProblems,
  type WatchedPage,
  watchedPage,
} from './browser.ts';

const SAMPLE = JSON.parse(
  fs.readFileSync(new URL('../fixtures/sample-glossary.json', import.meta.url), 'utf8'),
) as { id: number; term: string; category: string }[];

const missing = chromiumMissing();
const skip = missing !== null && process.env.CI !== 'true';
if (skip) process.stderr.write(`NOTICE: browser tests skipped: ${missing}\n`);

describe('web page in Chromium', {
  skip: skip ? `browser tests skipped: ${missing}` : false,
}, () => {
  let browser: Browser;
  let glossary: ListeningApp;
  let watched: WatchedPage;
  let page: Page;

  before(async () => {
    // Under CI=true a missing Chromium fails here instead of skipping.
    if (missing) assert.fail(`${missing}: install Debian's chromium (see .ci/run)`);
    browser = await launchBrowser();
  });
  after(() => browser?.close());

  beforeEach(async () => {
    glossary = await listenApp();
    const seeded = await fetch(`${glossary.url}/terms/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(SAMPLE),
    });
    assert.equal(seeded.status, 207);
    watched = await watchedPage(browser.context);
    page = watched.page;
  });
  afterEach(async () => {
    await page.close();
    await glossary.close();
    // Every test, whatever it did: the page asked nothing of any other host (no CDN), and
    // logged no error beyond Chromium's line for each 4xx answer the test provoked.
    assertOnlyOwnOrigin();
    assert.deepEqual(unexpectedProblems(watched), []);
  });

  const termLinks = () => page.getByRole('list', { name: 'Terms' }).getByRole('link');
  const detailHeading = () => page.locator('#detail-title');

  /** Polls `condition` until it holds; the page's CSP forbids `waitForFunction`'s eval. */
  async function until(condition: () => Promise<boolean>, what: () => string): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (!(await condition())) {
      if (Date.now() > deadline) assert.fail(`never happened: ${what()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Waits until the list shows exactly these term names, in this order. */
  async function listShows(names: string[]): Promise<void> {
    let shown: string[] = [];
    const expected = JSON.stringify(names);
    await until(
      async () => {
        shown = await termLinks().allTextContents();
        return JSON.stringify(shown) === expected;
      },
      () => `the list shows ${expected} (it shows ${JSON.stringify(shown)})`,
    );
  }

  function assertOnlyOwnOrigin(): void {
    const foreign = watched.requests.filter((url) => !url.startsWith(`${glossary.url}/`));
    assert.deepEqual(foreign, [], 'requests to another host');
  }

  test('lists every term under a title naming the glossary, all from its own origin', async () => {
    await page.goto(`${glossary.url}/`);
    assert.match(await page.title(), /Glossary/);
    await page.getByRole('status').filter({ hasText: '16 terms' }).waitFor();
    assert.deepEqual(
      await termLinks().allTextContents(),
      SAMPLE.map((term) => term.term),
    );
    assert.deepEqual(watched.problems, []);
  });

  test('the search box filters as you type, once typing pauses, through GET /terms?search=', async () => {
    await page.clock.install();
    await page.goto(`${glossary.url}/`);
    await page.getByRole('status').filter({ hasText: '16 terms' }).waitFor();
    const search = page.getByRole('searchbox', { name: 'Search by name' });
    await search.pressSequentially('CODE');
    const searches = () => watched.requests.filter((url) => url.includes('search='));
    assert.deepEqual(searches(), [], 'no request while typing');
    await page.clock.runFor(300);
    await listShows(['Docs as code', 'Infrastructure as code']);
    assert.deepEqual(searches(), [`${glossary.url}/terms?search=CODE`]);
    await search.fill('no such thing');
    await page.clock.runFor(300);
    await page.getByRole('status').filter({ hasText: 'No term matches.' }).waitFor();
    assert.equal(await termLinks().count(), 0);
    assert.deepEqual(watched.problems, []);
  });

  test('the category buttons, named after the categories, filter the list', async () => {
    await page.goto(`${glossary.url}/`);
    await page.getByRole('status').filter({ hasText: '16 terms' }).waitFor();
    for (const category of ['frontend', 'backend', 'devops', 'docs-as-code']) {
      const button = page.getByRole('button', { name: category, exact: true });
      await button.click();
      const expected = SAMPLE.filter((term) => term.category === category).map((t) => t.term);
      await listShows(expected);
      assert.equal(await page.locator('#list-status').textContent(), `${expected.length} terms`);
      assert.equal(await button.getAttribute('aria-pressed'), 'true');
    }
    await page.getByRole('button', { name: 'All', exact: true }).click();
    await listShows(SAMPLE.map((term) => term.term));
    assert.deepEqual(watched.problems, []);
  });

  test('selecting a term shows its definition, category and see-also names as links', async () => {
    await page.goto(`${glossary.url}/`);
    await termLinks().filter({ hasText: 'Canary release' }).click();
    await page.waitForURL(`${glossary.url}/#/terms/12`);
    await detailHeading().filter({ hasText: 'Canary release' }).waitFor();
    const detail = page.locator('#detail');
    assert.match(
      (await detail.locator('.definition').textContent()) ?? '',
      /^Rolling a new version out/,
    );
    assert.equal(await detail.locator('dd.category').textContent(), 'devops');
    const related = detail.getByRole('link', { name: 'Blue-green deployment' });
    assert.equal(await related.getAttribute('href'), '#/terms/9');
    // Id 99 names no term: it is shown as such, not as an error.
    assert.equal(await detail.locator('.unresolved').textContent(), 'ID 99 (no such term)');
    await related.click();
    await detailHeading().filter({ hasText: 'Blue-green deployment' }).waitFor();
    assert.deepEqual(watched.failures, ['GET /terms/99 404']);
    assert.deepEqual(unexpectedProblems(watched), []);
  });

  test('a deep link to a term survives a reload', async () => {
    await page.goto(`${glossary.url}/#/terms/5`);
    await detailHeading().filter({ hasText: 'Hydration' }).waitFor();
    await page.reload();
    await detailHeading().filter({ hasText: 'Hydration' }).waitFor();
    assert.match(
      (await page.locator('#detail .definition').textContent()) ?? '',
      /^Attaching client-side/,
    );
    await page.goto(`${glossary.url}/#/terms/4242`);
    await detailHeading().filter({ hasText: 'Term not found' }).waitFor();
    assert.deepEqual(unexpectedProblems(watched), []);
  });

  test('the add form shows the 422 messages next to their fields, then adds a term', async () => {
    await page.goto(`${glossary.url}/`);
    const form = page.locator('#add-form');
    await form.getByLabel('ID', { exact: true }).fill('abc');
    await form.getByLabel('Term').fill('   ');
    await form.getByLabel('See also').fill('7, x');
    await form.getByRole('button', { name: 'Add term' }).click();
    const error = (field: string) => page.locator(`#add-${field}-error`);
    await error('id').filter({ hasText: 'value is not a valid integer' }).waitFor();
    assert.equal(await error('term').textContent(), 'ensure this value has at least 1 characters');
    assert.equal(
      await error('definition').textContent(),
      'ensure this value has at least 1 characters',
    );
    assert.equal(await error('category').textContent(), 'field required');
    assert.equal(await error('see_also').textContent(), 'item 1: value is not a valid integer');
    assert.equal(await form.getByLabel('ID', { exact: true }).getAttribute('aria-invalid'), 'true');
    assert.equal(
      await form.getByLabel('ID', { exact: true }).getAttribute('aria-describedby'),
      'add-id-error',
    );

    await form.getByLabel('ID', { exact: true }).fill('50');
    await form.getByLabel('Term').fill('Service worker');
    await form.getByLabel('Definition').fill('A script the browser runs apart from the page.');
    await form.getByLabel('Category').selectOption('frontend');
    await form.getByLabel('See also').fill('5, 6');
    await form.getByRole('button', { name: 'Add term' }).click();
    await page
      .locator('#add-status')
      .filter({ hasText: 'Added Service worker (ID 50).' })
      .waitFor();
    assert.equal(await error('id').textContent(), '');
    await termLinks().filter({ hasText: 'Service worker' }).waitFor();
    const stored = await fetch(`${glossary.url}/terms/50`);
    assert.deepEqual(await stored.json(), {
      id: 50,
      term: 'Service worker',
      definition: 'A script the browser runs apart from the page.',
      category: 'frontend',
      see_also: [5, 6],
    });
    assert.deepEqual(watched.failures, ['POST /terms 422']);
    assert.deepEqual(unexpectedProblems(watched), []);
  });

  test('importing a JSON file through the bulk endpoint shows the result of each item', async () => {
    await page.goto(`${glossary.url}/`);
    const items = [
      { id: 60, term: 'Web component', definition: 'A custom element.', category: 'frontend' },
      { id: 1, term: 'Again', definition: 'Taken id.', category: 'backend' },
      { id: 61, term: 'Wrong', definition: 'Bad category.', category: 'design' },
    ];
    await page.getByLabel('JSON file').setInputFiles({
      name: 'terms.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(items)),
    });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page
      .locator('#import-status')
      .filter({ hasText: 'terms.json: 1 created, 2 rejected.' })
      .waitFor();
    const rows = page.locator('#import-results tbody tr');
    const cells = async (row: number) => rows.nth(row).locator('td').allTextContents();
    assert.equal(await rows.count(), 3);
    assert.deepEqual(await cells(0), ['0', 'created', 'ID 60']);
    assert.deepEqual(await cells(1), ['1', 'error', 'Term with ID 1 already exists.']);
    const [index, status, detail] = await cells(2);
    assert.deepEqual([index, status], ['2', 'error']);
    assert.match(detail ?? '', /^category: value is not a valid enumeration member/);
    await termLinks().filter({ hasText: 'Web component' }).waitFor();
    assert.deepEqual(watched.problems, []);
  });

  test('a file that is not JSON is reported without sending anything', async () => {
    await page.goto(`${glossary.url}/`);
    await page.getByLabel('JSON file').setInputFiles({
      name: 'notes.json',
      mimeType: 'application/json',
      buffer: Buffer.from('{ not json'),
    });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page
      .locator('#import-status')
      .filter({ hasText: 'notes.json is not valid JSON.' })
      .waitFor();
    assert.ok(!watched.requests.some((url) => url.endsWith('/terms/bulk')));
  });

  test('on a phone-sized screen nothing overflows sideways and the controls stay usable', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`${glossary.url}/#/terms/1`);
    await detailHeading().filter({ hasText: 'API gateway' }).waitFor();
    // The detail sits below the list on a phone: a deep link scrolls it into view.
    await until(
      async () => {
        const box = await detailHeading().boundingBox();
        return box !== null && box.y >= 0 && box.y + box.height <= 740;
      },
      () => 'the deep-linked term is scrolled into view',
    );
    const overflow = await page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    assert.equal(overflow, 0);
    for (const control of [
      page.getByRole('searchbox'),
      page.getByRole('button', { name: 'docs-as-code', exact: true }),
      termLinks().first(),
    ]) {
      const box = await control.boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= 360, 'inside the screen width');
      assert.ok(box.height >= 20, 'tall enough to tap');
    }
    await page.getByRole('button', { name: 'devops', exact: true }).click();
    await listShows(SAMPLE.filter((term) => term.category === 'devops').map((t) => t.term));
    assert.deepEqual(watched.problems, []);
  });

  test('everything works from the keyboard: filter, open a term, follow a see-also link', async () => {
    await page.goto(`${glossary.url}/`);
    await page.getByRole('status').filter({ hasText: '16 terms' }).waitFor();
    const focused = () => page.locator(':focus');
    async function tabTo(name: string): Promise<void> {
      for (let presses = 0; presses < 40; presses += 1) {
        await page.keyboard.press('Tab');
        if (
          (await focused()
            .textContent()
            .catch(() => '')) === name
        )
          return;
      }
      assert.fail(`Tab never reached ${name}`);
    }
    await tabTo('backend');
    await page.keyboard.press('Enter');
    await listShows(['API gateway', 'Rate limiting', 'Idempotency', 'Circuit breaker']);
    await tabTo('API gateway');
    await page.keyboard.press('Enter');
    await detailHeading().filter({ hasText: 'API gateway' }).waitFor();
    // The definition gets the focus, so the next Tab goes on from there.
    assert.equal(await focused().getAttribute('id'), 'detail');
    await tabTo('Load balancer');
    await page.keyboard.press('Enter');
    await detailHeading().filter({ hasText: 'Load balancer' }).waitFor();
    assert.equal(page.url(), `${glossary.url}/#/terms/2`);
    await page.goBack();
    await detailHeading().filter({ hasText: 'API gateway' }).waitFor();
    assert.deepEqual(watched.problems, []);
  });
});
