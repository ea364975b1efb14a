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
 * Tokens on the page in Chromium (issue 32, point 8): the page says up front that changes need
 * a token, asks for it once per browser session (the open tabs share it), and a cancelled
 * prompt says the change was not saved.
 */

const AXE = fs.readFileSync(
  new URL('../../node_modules/axe-core/axe.min.js', import.meta.url),
  'utf8',
);
const SAMPLE = fs.readFileSync(
  new URL('../fixtures/sample-glossary.json', import.meta.url),
  'utf8',
);
const missing = chromiumMissing();
const skip = missing !== null && process.env.CI !== 'true';
if (skip) process.stderr.write(`NOTICE: browser tests skipped: ${missing}\n`);

async function load(url: string): Promise<void> {
  const response = await fetch(`${url}/terms/bulk`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: SAMPLE,
  });
  assert.equal(response.status, 207);
}

async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  return (await page.evaluate(
    '(async () => (await axe.run(document)).violations.map((v) => v.id + ": " + v.nodes.map((n) => n.target.join(" ")).join(", ")))()',
  )) as string[];
}

describe('tokens, said up front and asked for once a session, in Chromium', {
  skip: skip ? `browser tests skipped: ${missing}` : false,
}, () => {
  let browser: Browser;
  let glossary: ListeningApp;
  const pages: WatchedPage[] = [];

  before(async () => {
    if (missing) assert.fail(`${missing}: install Debian's chromium (see .ci/run)`);
    glossary = await listenApp();
    await load(glossary.url);
  });
  after(() => glossary?.close());
  beforeEach(async () => {
    browser = await launchBrowser();
  });
  afterEach(async () => {
    for (const watched of pages.splice(0)) {
      const foreign = watched.requests.filter((url) => !url.startsWith(`${glossary.url}/`));
      assert.deepEqual(foreign, [], 'requests to another host');
      assert.deepEqual(unexpectedProblems(watched), []);
    }
    await browser.close();
  });
  async function open(path: string): Promise<Page> {
    const watched = await watchedPage(browser.context);
    pages.push(watched);
    await watched.page.goto(`${glossary.url}${path}`);
    return watched.page;
  }
  const stored = async (id: number) => (await fetch(`${glossary.url}/terms/${id}`)).status === 200;

  test('the page says writes need a token, a cancelled prompt says not saved, other tabs share the token', async () => {
    const alice = newToken('alice', 'write');
    await glossary.store.addToken(alice.stored);
    const first = await open('/?term=4');
    await first.locator('#detail-title').filter({ hasText: 'Idempotency' }).waitFor();
    await first.locator('#write-access').filter({ hasText: 'Changes here need a token' }).waitFor();
    assert.deepEqual(await axeViolations(first), []);

    const remove = async (page: Page) => {
      await page.locator('#detail').getByRole('button', { name: 'Delete' }).click();
      await page.locator('dialog[open]').getByRole('button', { name: 'Delete' }).click();
    };
    await remove(first);
    const ask = first.getByRole('dialog', { name: 'Token needed' });
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await first
      .locator('#write-status')
      .filter({ hasText: 'Not saved: changing this glossary needs a token' })
      .waitFor();
    assert.ok(await stored(4), 'nothing was deleted');

    await remove(first);
    await ask.getByLabel('Token').fill(alice.token);
    await ask.getByRole('button', { name: 'Use token' }).click();
    await first.locator('#detail-title').filter({ hasText: 'This term was deleted' }).waitFor();
    await first.locator('#write-access').filter({ hasText: 'saved with your token' }).waitFor();
    assert.equal(await stored(4), false);

    // A second tab of the same browser gets the token from the first: no prompt.
    const second = await open('/?term=3');
    await second.locator('#detail-title').filter({ hasText: 'Rate limiting' }).waitFor();
    await second.locator('#write-access').filter({ hasText: 'saved with your token' }).waitFor();
    await remove(second);
    await second.locator('#detail-title').filter({ hasText: 'This term was deleted' }).waitFor();
    const refusedDeletes = (pages[1] as WatchedPage).failures.filter((f) => f.startsWith('DELETE'));
    assert.deepEqual(refusedDeletes, [], 'the delete carried the shared token');
    const history = (await (await fetch(`${glossary.url}/terms/3/history`)).json()) as {
      by: string;
    }[];
    assert.equal(history[0]?.by, 'alice');

    // A cancelled prompt in the form says so in the form, and keeps the text.
    await second.getByRole('button', { name: 'Token' }).click();
    await second
      .getByRole('dialog', { name: 'Token needed' })
      .getByRole('button', { name: 'Forget my token' })
      .click();
    await first.locator('#write-access').filter({ hasText: 'Changes here need a token' }).waitFor();
    await first.getByRole('button', { name: 'Bring back as it was' }).click();
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await first.locator('#write-status').filter({ hasText: 'Not saved' }).waitFor();
    assert.equal(await stored(4), false);
    // The focus goes back to the button pressed, not to the page's start.
    let last: string | undefined;
    const focused = async () => {
      last = (await first.evaluate('document.activeElement.textContent.trim()')) as string;
      return last;
    };
    await eventually(
      async () => (await focused()) === 'Bring back as it was',
      () => `the focus on Bring back as it was, not ${last}`,
    );

    // In the form, the words sit in the form, and the text stays.
    await first.getByRole('button', { name: 'New term' }).click();
    const form = first.getByRole('dialog', { name: 'New term' });
    await form.getByLabel('Name').fill('Sharding');
    await form.getByLabel('Definition').fill('Splitting data across databases.');
    await form.getByLabel('Category').selectOption('backend');
    await form.getByRole('button', { name: 'Add term' }).click();
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await form.getByText('Not saved: changing this glossary needs a token').waitFor();
    await eventually(async () => (await focused()) === 'Add term', 'the focus on Add term');
    assert.equal(await form.getByLabel('Name').inputValue(), 'Sharding');
    assert.deepEqual(await axeViolations(first), []);
  });
});
