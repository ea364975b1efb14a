import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { backends } from '../helpers/backends.ts';
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
 * Moving around the page in Chromium (issue 32, point 8) over a glossary of a few thousand
 * terms named as a team names them, loaded through POST /terms/bulk: pages, letters, typed page
 * numbers, the alphabet by keyboard, Enter in the search box, a shared link on a phone, and
 * filtered downloads. Every test checks that the page asked nothing of another host, asked for
 * no unpaged list, and logged no error beyond Chromium's line for each 4xx it provoked.
 */

const AXE = fs.readFileSync(
  new URL('../../node_modules/axe-core/axe.min.js', import.meta.url),
  'utf8',
);
const missing = chromiumMissing();
const skip = missing !== null && process.env.CI !== 'true';
if (skip) process.stderr.write(`NOTICE: browser tests skipped: ${missing}\n`);

const FIRST = (
  'Async,Blue-green,Canary,Distributed,Edge,Fault-tolerant,Graceful,Horizontal,' +
  'Idempotent,JSON,Key-value,Lazy,Multi-region,Network,Optimistic,Partitioned,' +
  'Query,Rolling,Stateless,Transactional,Unified,Virtual,Web,XML,YAML,' +
  'Zero-downtime'
).split(',');
const SECOND = (
  'cache,queue,deployment,index,schema,router,gateway,lock,replica,shard,build,' +
  'pipeline,token,session,worker,scheduler,proxy,stream,snapshot,migration,' +
  'rendering,hydration,bundle,layout,style guide,changelog,linter,release,rollback,' +
  'health check,load test,trace,metric,alert,secret,certificate,container,cluster,' +
  'volume,job'
).split(',');
const VARIANTS = ['', ' pattern', ' strategy'];
const CATEGORIES = ['frontend', 'backend', 'devops', 'docs-as-code'];

interface NewTerm {
  id: number;
  term: string;
  definition: string;
  category: string;
  see_also: number[];
}

/** 26 × 40 × 3 = 3,120 terms, 120 a letter, each linking to the term 41 ids on. */
function glossaryTerms(): NewTerm[] {
  const terms: NewTerm[] = [];
  for (const first of FIRST) {
    for (const second of SECOND) {
      for (const variant of VARIANTS) {
        const id = terms.length + 1;
        terms.push({
          id,
          term: `${first} ${second}${variant}`,
          definition: `How a ${second} behaves when it is ${first.toLowerCase()}${variant ? `, as a ${variant.trim()}` : ''}.`,
          category: CATEGORIES[id % 4] as string,
          see_also: [((id + 40) % 3120) + 1],
        });
      }
    }
  }
  terms.push(
    {
      id: 5001,
      term: '2FA',
      definition: 'Two-factor authentication.',
      category: 'backend',
      see_also: [],
    },
    {
      id: 5002,
      term: 'Ångström',
      definition: 'A unit of length.',
      category: 'docs-as-code',
      see_also: [],
    },
  );
  return terms;
}
const TERMS = glossaryTerms();

async function load(url: string, terms: unknown[]): Promise<void> {
  const response = await fetch(`${url}/terms/bulk`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(terms),
  });
  assert.equal(response.status, 207);
}

async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  return (await page.evaluate(
    '(async () => (await axe.run(document)).violations.map((v) => v.id + ": " + v.nodes.map((n) => n.target.join(" ")).join(", ")))()',
  )) as string[];
}

// The letters' counts and ends rest on the stores' order of names: both stores.
for (const backend of backends()) {
  describe(`moving around a glossary of 3,122 terms on ${backend.name}, in Chromium`, {
    skip: skip ? `browser tests skipped: ${missing}` : false,
  }, () => {
    let browser: Browser;
    let glossary: ListeningApp;
    let watched: WatchedPage;
    let page: Page;

    before(async () => {
      if (missing) assert.fail(`${missing}: install Debian's chromium (see .ci/run)`);
      browser = await launchBrowser();
      glossary = await listenApp(backend);
      await load(glossary.url, TERMS);
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
    const focusedId = () => page.evaluate('document.activeElement && document.activeElement.id');
    /** Where an element's top is, relative to the viewport's top. */
    const topOf = async (selector: string) =>
      Number(
        await page.evaluate(
          `document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect().top`,
        ),
      );

    test('Next and Previous show the new page from its start, the focus on the list', async () => {
      await page.goto(`${glossary.url}/`);
      await status().filter({ hasText: '1–50 of 3,122 terms, A to Z' }).waitFor();
      await page.getByRole('button', { name: 'Next' }).scrollIntoViewIfNeeded();
      assert.ok((await topOf('#list-status')) < 0, 'the list starts above the screen');
      await page.getByRole('button', { name: 'Next' }).click();
      await status().filter({ hasText: '51–100 of 3,122 terms' }).waitFor();
      assert.equal(await focusedId(), 'terms');
      const top = await topOf('#list-status');
      assert.ok(top >= 0 && top < 50, `the new page's start is at the top (${top})`);
      await page.getByRole('button', { name: 'Previous' }).scrollIntoViewIfNeeded();
      await page.getByRole('button', { name: 'Previous' }).click();
      await status().filter({ hasText: '1–50 of 3,122 terms' }).waitFor();
      assert.equal(await focusedId(), 'terms');
      assert.ok((await topOf('#list-status')) >= 0);
    });

    test('a letter shows only its terms, with their count, a page at a time', async () => {
      await page.goto(`${glossary.url}/`);
      await status().filter({ hasText: 'A to Z' }).waitFor();
      await page.getByRole('button', { name: 'Letter R' }).click();
      await status().filter({ hasText: 'Starting with “R”: 1–50 of 120 terms.' }).waitFor();
      assert.match(page.url(), /\?from=r$/);
      assert.ok((await termLinks().allTextContents()).every((name) => name.startsWith('Rolling ')));
      await page.getByRole('button', { name: 'Next' }).click();
      await status().filter({ hasText: 'Starting with “R”: 51–100 of 120 terms.' }).waitFor();
      await page.getByRole('button', { name: 'Next' }).click();
      await status().filter({ hasText: 'Starting with “R”: 101–120 of 120 terms.' }).waitFor();
      const last = await termLinks().allTextContents();
      assert.equal(last.length, 20);
      assert.ok(
        last.every((name) => name.startsWith('Rolling ')),
        "nothing of S on R's last page",
      );
      // Past a letter's ends, Next and Previous go on to the next and the previous letter.
      await page.getByRole('button', { name: 'Next' }).click();
      await status().filter({ hasText: 'Starting with “S”: 1–50 of 120 terms.' }).waitFor();
      await page.getByRole('button', { name: 'Previous' }).click();
      await status().filter({ hasText: 'Starting with “R”: 101–120 of 120 terms.' }).waitFor();
      assert.match(page.url(), /\?from=r&offset=100$/);
      await page.goBack();
      await status().filter({ hasText: 'Starting with “S”: 1–50 of 120 terms.' }).waitFor();

      // With a category, the count is that category's.
      await page.getByRole('button', { name: 'Letter R' }).click();
      await status().filter({ hasText: 'Starting with “R”: 1–50 of 120 terms.' }).waitFor();
      await page.locator('#category').selectOption('devops');
      await status().filter({ hasText: 'Starting with “R”: 1–30 of 30 terms.' }).waitFor();
      const response = await fetch(`${glossary.url}/terms?category=devops&sort=term&limit=1000`);
      const expected = ((await response.json()) as { term: string }[])
        .map((term) => term.term)
        .filter((name) => name.startsWith('R'));
      assert.deepEqual(await termLinks().allTextContents(), expected);

      // What sorts before A and after Z has a button of its own.
      await page.getByRole('button', { name: 'Digits and symbols' }).click();
      await status().filter({ hasText: 'No term in this category starts with a digit' }).waitFor();
      await page.locator('#category').selectOption('');
      await status().filter({ hasText: 'Digits and symbols: 1–1 of 1 term.' }).waitFor();
      assert.deepEqual(await termLinks().allTextContents(), ['2FA']);
      assert.ok(await page.getByRole('button', { name: 'Previous' }).isDisabled());
      await page.getByRole('button', { name: 'Next' }).click();
      await status().filter({ hasText: 'Starting with “A”: 1–50 of 120 terms.' }).waitFor();
      await page.getByRole('button', { name: 'Other letters' }).click();
      await status().filter({ hasText: 'Other letters: 1–1 of 1 term.' }).waitFor();
      assert.deepEqual(await termLinks().allTextContents(), ['Ångström']);
      assert.ok(await page.getByRole('button', { name: 'Next' }).isDisabled());
    });

    test('an offset past the end shows the last page; a page number can be typed', async () => {
      await page.goto(`${glossary.url}/?from=r&offset=5000`);
      await status().filter({ hasText: 'Starting with “R”: 101–120 of 120 terms.' }).waitFor();
      await eventually(
        () => page.url().endsWith('?from=r&offset=100'),
        () => `the address says the last page: ${page.url()}`,
      );
      await page.goto(`${glossary.url}/?offset=999999`);
      await status().filter({ hasText: '3,101–3,122 of 3,122 terms, A to Z.' }).waitFor();
      const number = page.getByRole('spinbutton', { name: 'Page' });
      assert.equal(await number.inputValue(), '63');
      await page.locator('#page-count').filter({ hasText: 'of 63' }).waitFor();
      await number.fill('3');
      await number.press('Enter');
      await status().filter({ hasText: '101–150 of 3,122 terms' }).waitFor();
      assert.equal(await focusedId(), 'terms');
      await number.fill('1000');
      await number.press('Enter');
      await status().filter({ hasText: '3,101–3,122 of' }).waitFor();
      await page.goBack();
      await status().filter({ hasText: '101–150 of 3,122 terms' }).waitFor();
      assert.deepEqual(await axeViolations(page), []);
    });

    test('the alphabet is one Tab stop: arrows, Home and End inside, Enter and Space choose', async () => {
      await page.goto(`${glossary.url}/`);
      await status().filter({ hasText: 'A to Z' }).waitFor();
      await page.locator('#category').focus();
      await page.keyboard.press('Tab');
      const label = () => page.evaluate('document.activeElement.getAttribute("aria-label")');
      assert.equal(await label(), 'Letter A');
      await page.keyboard.press('ArrowRight');
      assert.equal(await label(), 'Letter B');
      await page.keyboard.press('End');
      assert.equal(await label(), 'Other letters');
      await page.keyboard.press('ArrowRight');
      assert.equal(await label(), 'Digits and symbols', 'the arrows wrap around');
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('Home');
      assert.equal(await label(), 'Digits and symbols');
      for (let i = 0; i < 3; i += 1) await page.keyboard.press('ArrowRight');
      await page.keyboard.press('Enter');
      await status().filter({ hasText: 'Starting with “C”: 1–50 of 120 terms.' }).waitFor();
      // One Tab leaves the letters, and Shift+Tab comes back to the chosen one.
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate('document.activeElement.textContent'), 'Canary alert');
      await page.keyboard.press('Shift+Tab');
      assert.equal(await label(), 'Letter C');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Space');
      await status().filter({ hasText: 'Starting with “D”: 1–50 of 120 terms.' }).waitFor();
      assert.equal(
        await page.locator('#alphabet button[tabindex="0"]').count(),
        1,
        'one letter in the Tab order',
      );
      // Said to a screen reader: a toolbar is where the arrow keys move.
      assert.equal(
        await page.getByRole('toolbar', { name: 'Letters' }).getByRole('button').count(),
        await page.locator('#alphabet button').count(),
      );
    });

    test('Enter in the search box searches at once and moves to the first result', async () => {
      await page.goto(`${glossary.url}/`);
      await status().filter({ hasText: 'A to Z' }).waitFor();
      const search = page.getByRole('searchbox', { name: 'Search' });
      await search.fill('zero downtime rollback');
      await search.press('Enter');
      await status().filter({ hasText: 'found for “zero downtime rollback”' }).waitFor();
      const focused = await page.evaluate('document.activeElement.textContent');
      assert.equal(focused, await termLinks().first().textContent());
      assert.match(String(focused), /^Zero-downtime rollback/);
      await page.keyboard.press('Enter');
      await page
        .locator('#detail-title')
        .filter({ hasText: String(focused) })
        .waitFor();
    });

    test('a shared link to a term scrolls to it on a phone, in light and dark', async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      const term = TERMS.find((t) => t.term === 'Network proxy strategy') as NewTerm;
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto(`${glossary.url}/?from=n&offset=50&term=${term.id}`);
        await page.locator('#detail-title').filter({ hasText: term.term }).waitFor();
        await status().filter({ hasText: 'Starting with “N”: 51–100' }).waitFor();
        // Below fifty terms of the list, the term is scrolled into view.
        await eventually(
          async () => {
            const top = await topOf('#detail-title');
            return top >= 0 && top < 844 - 100;
          },
          () => 'the term is on the screen',
        );
        const overflow = await page.evaluate(
          'document.documentElement.scrollWidth - document.documentElement.clientWidth',
        );
        assert.equal(overflow, 0);
        assert.deepEqual(await axeViolations(page), []);
      }
    });

    test('the pager fits a phone: "Page [n] of N" on one line, Next beside it at 390 px', async () => {
      /** Whether "of N" is one line, Previous and Next on one row, and how much is off-screen. */
      // A string, as the other evaluations here: tsx would wrap a named function in __name.
      const pager = async () =>
        (await page.evaluate(`(() => {
          const top = (id) => document.getElementById(id).getBoundingClientRect().top;
          return {
            countLines: document.getElementById('page-count').getClientRects().length,
            oneRow: top('previous-page') === top('next-page'),
            overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
          };
        })()`)) as { countLines: number; oneRow: boolean; overflow: number };
      for (const width of [390, 320]) {
        await page.setViewportSize({ width, height: 844 });
        for (const [address, count] of [
          ['/?offset=999999', 'of 63'],
          ['/?from=r', 'of 3'],
        ] as const) {
          await page.goto(`${glossary.url}${address}`);
          await page.locator('#page-count').filter({ hasText: count }).waitFor();
          const now = await pager();
          assert.equal(now.countLines, 1, `"${count}" on one line at ${width} px`);
          assert.equal(now.overflow, 0, `nothing wider than ${width} px`);
          // At 390 px all three sit on one row; at 320 (the narrowest screen WCAG reflows to) Next may go below, never off-screen.
          if (width === 390) assert.ok(now.oneRow, `Previous and Next on one row at ${address}`);
        }
      }
    });

    test('a filtered download is named after its filter and says which links it lacks', async () => {
      await page.goto(`${glossary.url}/?q=cache&category=devops`);
      await status().filter({ hasText: 'found for “cache”' }).waitFor();
      await page.locator('.downloads summary').click();
      const take = async (format: string) => {
        const download = page.waitForEvent('download');
        await page.getByRole('button', { name: format, exact: true }).click();
        const file = await download;
        return { name: file.suggestedFilename(), text: fs.readFileSync(await file.path(), 'utf8') };
      };
      const markdown = await take('Markdown');
      assert.equal(markdown.name, 'glossary-category-devops-q-cache.md');
      // "Async cache pattern" (id 2, devops) links to id 43, "Async worker": no devops cache.
      assert.match(markdown.text, /See also: Async worker \(not in this download\)/);
      await page.locator('#download-status').filter({ hasText: 'not in this download' }).waitFor();
      const csv = await take('CSV');
      assert.equal(csv.name, 'glossary-category-devops-q-cache.csv');
      await page
        .locator('#download-status')
        .filter({
          hasText:
            /glossary-category-devops-q-cache\.csv is ready: \d+ terms\. \d+ see-also terms are not in this download/,
        })
        .waitFor();

      await page.goto(`${glossary.url}/?from=y`);
      await status().filter({ hasText: 'Starting with “Y”: 1–50 of 120 terms.' }).waitFor();
      await page.locator('.downloads summary').click();
      const json = await take('JSON');
      assert.equal(json.name, 'glossary-letter-y.json');
      const terms = JSON.parse(json.text) as { term: string }[];
      assert.equal(terms.length, 120, "the letter's terms, every page, nothing of Z");
      assert.ok(terms.every((t) => t.term.startsWith('YAML ')));
    });
  });
}
