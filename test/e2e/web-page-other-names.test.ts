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

/**
 * A term's other names on the page, in Chromium (terminology-and-docs.md, "Other names of a
 * term"): added in the form, shown with the term, and a name another term holds refused beside
 * its field, with axe finding nothing. Beside web-page.test.ts, because it needs stores that
 * keep `aliases` and `avoid`.
 */

const SAMPLE = fs.readFileSync(
  new URL('../fixtures/sample-glossary.json', import.meta.url),
  'utf8',
);
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

describe('other names on the page, in Chromium', {
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
    const loaded = await fetch(`${glossary.url}/terms/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: SAMPLE,
    });
    assert.equal(loaded.status, 207);
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
  const detail = () => page.locator('#detail');
  async function stored(id: number) {
    const response = await fetch(`${glossary.url}/terms/${id}`);
    return (await response.json()) as { aliases?: string[]; avoid?: string[] };
  }

  test('a new term with an alias and names to avoid shows them; edit keeps them', async () => {
    await page.goto(`${glossary.url}/`);
    await page.getByRole('button', { name: 'New term' }).click();
    await dialog().getByLabel('Name').fill('Webhook');
    await dialog().getByLabel('Definition').fill('An HTTP callback a service sends.');
    await dialog().getByLabel('Category').selectOption('backend');
    await dialog().getByLabel('Also called').fill('HTTP callback\n\n');
    await dialog().getByLabel('Avoid').fill('web hook\n  Web-hook  ');
    await dialog().getByRole('button', { name: 'Add term' }).click();
    await page.locator('#detail-title').filter({ hasText: 'Webhook' }).waitFor();
    assert.equal(await detail().locator('dd.aliases').textContent(), 'HTTP callback');
    assert.equal(await detail().locator('dd.avoid').textContent(), 'web hook, Web-hook');
    assert.deepEqual(await stored(17), {
      id: 17,
      term: 'Webhook',
      definition: 'An HTTP callback a service sends.',
      category: 'backend',
      see_also: [],
      aliases: ['HTTP callback'],
      avoid: ['web hook', 'Web-hook'],
    });
    assert.deepEqual(await axeViolations(page), []);

    await detail().getByRole('button', { name: 'Edit' }).click();
    assert.equal(await dialog().getByLabel('Avoid').inputValue(), 'web hook\nWeb-hook');
    await dialog().getByLabel('Also called').fill('HTTP callback\nWeb callback');
    await dialog().getByRole('button', { name: 'Save changes' }).click();
    await detail().locator('dd.aliases', { hasText: 'HTTP callback, Web callback' }).waitFor();
    assert.deepEqual((await stored(17)).aliases, ['HTTP callback', 'Web callback']);
  });

  test('a name another term holds is refused beside its field, in the service’s words', async () => {
    await fetch(`${glossary.url}/terms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 50,
        term: 'Webhook',
        definition: 'An HTTP callback.',
        category: 'backend',
        avoid: ['web hook'],
      }),
    });
    // A new term goes through the bulk endpoint: its item's detail is shown by the field.
    await page.goto(`${glossary.url}/`);
    await page.getByRole('button', { name: 'New term' }).click();
    await dialog().getByLabel('Name').fill('Callback');
    await dialog().getByLabel('Definition').fill('Code called back later.');
    await dialog().getByLabel('Category').selectOption('backend');
    await dialog().getByLabel('Also called').fill('hook\nWeb Hook');
    await dialog().getByRole('button', { name: 'Add term' }).click();
    const aliasesError = dialog().locator('#form-aliases-error');
    await aliasesError
      .filter({ hasText: "Line 2: 'Web Hook' is a name to avoid for term 50." })
      .waitFor();
    assert.equal(await dialog().getByLabel('Also called').getAttribute('aria-invalid'), 'true');
    assert.deepEqual(await axeViolations(page), []);
    await dialog().getByRole('button', { name: 'Cancel' }).click();

    // An edit is a PUT: its 422 is shown by the field too.
    await page.goto(`${glossary.url}/?term=1`);
    await page.locator('#detail-title').filter({ hasText: 'API gateway' }).waitFor();
    await detail().getByRole('button', { name: 'Edit' }).click();
    await dialog().getByLabel('Avoid').fill('webhook');
    await dialog().getByRole('button', { name: 'Save changes' }).click();
    await dialog()
      .locator('#form-avoid-error')
      .filter({ hasText: "Line 1: 'webhook' is the name of term 50." })
      .waitFor();
    assert.equal((await stored(1)).avoid, undefined);
  });
});
