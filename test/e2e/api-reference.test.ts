import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sampleTerm } from '../helpers/app.ts';
import { type ListeningApp, listenApp } from '../helpers/listening-app.ts';
import {
  type Browser,
  chromiumMissing,
  launchBrowser,
  unexpectedProblems,
  watchedPage,
} from './browser.ts';

/**
 * The API reference at /docs (@fastify/swagger-ui), in Chromium: it renders under the
 * service's Content-Security-Policy without a single violation or console error (issue 32:
 * its top bar's logo was an inline style the policy refused), and an operation can be tried.
 */

const missing = chromiumMissing();
const skip = missing !== null && process.env.CI !== 'true';
if (skip) process.stderr.write(`NOTICE: browser tests skipped: ${missing}\n`);

describe('the API reference at /docs, in Chromium', {
  skip: skip ? `browser tests skipped: ${missing}` : false,
}, () => {
  let browser: Browser;
  let glossary: ListeningApp;

  before(async () => {
    if (missing) assert.fail(`${missing}: install Debian's chromium (see .ci/run)`);
    browser = await launchBrowser();
    glossary = await listenApp();
    const created = await fetch(`${glossary.url}/terms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(sampleTerm(1, { term: 'Idempotency' })),
    });
    assert.equal(created.status, 201);
  });
  after(async () => {
    await browser?.close();
    await glossary?.close();
  });

  for (const path of ['/docs', '/docs/']) {
    test(`${path} renders every operation with no CSP violation or console error`, async () => {
      const watched = await watchedPage(browser.context);
      const { page } = watched;
      // Recorded from the first script on, before the reference's own scripts run.
      await page.addInitScript(`
        window.violations = [];
        document.addEventListener('securitypolicyviolation', (event) => {
          window.violations.push(event.violatedDirective + ' ' + event.blockedURI + ' ' + event.sourceFile);
        });`);
      try {
        const response = await page.goto(`${glossary.url}${path}`);
        assert.equal(response?.status(), 200);
        assert.match(
          String(response?.headers()['content-security-policy']),
          /script-src 'self'/,
          'the strict policy is still sent',
        );
        const listTerms = page.locator('#operations-terms-listTerms');
        await listTerms.waitFor({ state: 'visible' });
        assert.equal((await page.locator('.opblock').count()) > 10, true, 'every operation');
        assert.match(await page.title(), /API reference/);

        // Tried from the page: the reference's own request to the service works too.
        await listTerms.locator('.opblock-summary').click();
        await listTerms.getByRole('button', { name: 'Try it out' }).click();
        await listTerms.getByRole('button', { name: 'Execute' }).click();
        await listTerms.locator('.live-responses-table .response-col_status').first().waitFor();
        assert.match(await listTerms.locator('.responses-inner').innerText(), /Idempotency/);

        const violations = (await page.evaluate('window.violations')) as string[];
        assert.deepEqual(violations, []);
        assert.deepEqual(unexpectedProblems(watched), []);
        assert.deepEqual(watched.failures, []);
      } finally {
        await page.close();
      }
    });
  }
});
