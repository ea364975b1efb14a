import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, afterEach, before, beforeEach } from 'node:test';
import type { Page } from 'playwright-core';
import type { Backend } from '../helpers/backends.ts';
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
 * What the editing tests share (web-page-editing*.test.ts): the sample glossary on a fresh
 * store for each test, one page watched as web-page.test.ts watches its pages (no other host,
 * no console error beyond Chromium's line for each 4xx provoked), and a second person who
 * writes through the API.
 */

const SAMPLE = fs.readFileSync(
  new URL('../fixtures/sample-glossary.json', import.meta.url),
  'utf8',
);
const AXE = fs.readFileSync(
  new URL('../../node_modules/axe-core/axe.min.js', import.meta.url),
  'utf8',
);

export const missing = chromiumMissing();
export const skip = missing !== null && process.env.CI !== 'true';
if (skip) process.stderr.write(`NOTICE: browser tests skipped: ${missing}\n`);
export const skipReason = skip ? `browser tests skipped: ${missing}` : false;

export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  return (await page.evaluate(
    '(async () => (await axe.run(document)).violations.map((v) => v.id + ": " + v.nodes.map((n) => n.target.join(" ")).join(", ")))()',
  )) as string[];
}

export interface Editing {
  readonly page: Page;
  readonly watched: WatchedPage;
  readonly url: string;
  /** The open dialog (the topmost when two are open). */
  dialog(): ReturnType<Page['locator']>;
  /** The term as stored, or null when no term has the id. */
  stored(id: number): Promise<StoredTerm | null>;
  /** Someone else's change, through the API. */
  patch(id: number, fields: Record<string, unknown>): Promise<void>;
  remove(id: number): Promise<void>;
}

export interface StoredTerm {
  id: number;
  term: string;
  definition: string;
  category: string;
  see_also: number[];
  aliases?: string[];
  avoid?: string[];
}

/** Sets up the hooks of a describe block; its tests read the fields of the returned object. */
export function editingPage(backend?: Backend): Editing {
  let browser: Browser;
  let glossary: ListeningApp;
  let watched: WatchedPage;
  before(async () => {
    if (missing) assert.fail(`${missing}: install Debian's chromium (see .ci/run)`);
    browser = await launchBrowser();
  });
  after(() => browser?.close());
  beforeEach(async () => {
    glossary = await listenApp(backend);
    const loaded = await fetch(`${glossary.url}/terms/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: SAMPLE,
    });
    assert.equal(loaded.status, 207);
    watched = await watchedPage(browser.context);
  });
  afterEach(async () => {
    await watched.page.close();
    await glossary.close();
    const foreign = watched.requests.filter((url) => !url.startsWith(`${glossary.url}/`));
    assert.deepEqual(foreign, [], 'requests to another host');
    assert.deepEqual(unexpectedProblems(watched), []);
  });
  return {
    get page() {
      return watched.page;
    },
    get watched() {
      return watched;
    },
    get url() {
      return glossary.url;
    },
    dialog: () => watched.page.locator('dialog[open]').last(),
    async stored(id) {
      const response = await fetch(`${glossary.url}/terms/${id}`);
      return response.status === 200 ? ((await response.json()) as StoredTerm) : null;
    },
    async patch(id, fields) {
      const response = await fetch(`${glossary.url}/terms/${id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify(fields),
      });
      assert.equal(response.status, 200);
    },
    async remove(id) {
      const response = await fetch(`${glossary.url}/terms/${id}`, { method: 'DELETE' });
      assert.equal(response.status, 204);
    },
  };
}
