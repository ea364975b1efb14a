import fs from 'node:fs';
import path from 'node:path';
import { launchBrowser } from '../test/e2e/browser.ts';
import { listenApp } from '../test/helpers/listening-app.ts';

/**
 * `npm run screenshot`: docs/screenshot.png, the page with the sample glossary loaded and one
 * term selected from a search, as docs/web-page.md shows it. Needs Chromium at /usr/bin/chromium.
 */
const root = path.resolve(import.meta.dirname, '..');
const sample = fs.readFileSync(path.join(root, 'test/fixtures/sample-glossary.json'), 'utf8');
const glossary = await listenApp();
const browser = await launchBrowser();
try {
  await fetch(`${glossary.url}/terms/bulk`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: sample,
  });
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: 1100, height: 820 });
  await page.goto(`${glossary.url}/?q=deploy&term=12`);
  await page.locator('#detail-title', { hasText: 'Canary release' }).waitFor();
  await page.locator('#terms li mark').first().waitFor();
  await page.screenshot({ path: path.join(root, 'docs/screenshot.png') });
} finally {
  await browser.close();
  await glossary.close();
}
