import fs from 'node:fs';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { tempDir } from '../helpers/backends.ts';

/** Debian's Chromium, as `.ci/run` installs it. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Why the browser tests cannot run here, or null when they can. Outside CI a missing Chromium
 * skips them with this notice; under CI=true it is a failure, so CI never passes without them.
 */
export function chromiumMissing(): string | null {
  return fs.existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM}`;
}

/** Flags that keep Chromium off the network and away from any state but its own. */
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export interface Browser {
  context: BrowserContext;
  /** Closes Chromium, then removes its profile. */
  close(): Promise<void>;
}

/** Chromium with a fresh profile of its own. */
export async function launchBrowser(): Promise<Browser> {
  const profile = tempDir('glossary-chromium-');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1200, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}

/** A page with everything it logs and requests recorded, for the tests to assert on. */
export interface WatchedPage {
  page: Page;
  /** Console messages of type error or warning, and uncaught exceptions. */
  problems: string[];
  /** Every URL the page requested. */
  requests: string[];
  /** `METHOD path status` of every response with a status of 400 or more. */
  failures: string[];
}

export async function watchedPage(context: BrowserContext): Promise<WatchedPage> {
  const page = await context.newPage();
  const watched: WatchedPage = { page, problems: [], requests: [], failures: [] };
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') {
      watched.problems.push(`${message.type()}: ${message.text()}`);
    }
  });
  page.on('pageerror', (error) => watched.problems.push(`uncaught: ${error.message}`));
  page.on('request', (request) => watched.requests.push(request.url()));
  page.on('response', (response) => {
    if (response.status() >= 400) {
      const url = new URL(response.url());
      watched.failures.push(`${response.request().method()} ${url.pathname} ${response.status()}`);
    }
  });
  return watched;
}

/**
 * Chromium logs every 4xx answer to a `fetch` as a console error ("Failed to load resource").
 * Where a test provokes one on purpose (a 404 for an unresolvable see-also id, a 422 for a bad
 * form), that line and only that line is expected: one per such response, nothing else.
 */
export function unexpectedProblems(watched: WatchedPage): string[] {
  const expected = watched.failures.map((failure) => failure.split(' ').at(-1));
  return watched.problems.filter((problem) => {
    const match =
      /^error: Failed to load resource: the server responded with a status of (\d+)/.exec(problem);
    const index = match ? expected.indexOf(match[1]) : -1;
    if (index === -1) return true;
    expected.splice(index, 1);
    return false;
  });
}
