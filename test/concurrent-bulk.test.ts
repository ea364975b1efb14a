import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { tempDir } from './helpers/backends.ts';
import { raceOverlappingBulk } from './helpers/bulk-race.ts';
import { killLeftovers, startServer } from './helpers/server-process.ts';

/**
 * Concurrent bulk imports with overlapping ids through several real server processes on one
 * database: the bulk path creates each id exactly once, whichever process gets it first.
 */

describe('concurrent bulk imports (sqlite)', () => {
  after(killLeftovers);

  test('two processes on one SQLite file create each id exactly once', async (t) => {
    const file = path.join(tempDir(), 'glossary.db');
    const env = { DATABASE_URL: `sqlite:${file}` };
    const first = await startServer(env);
    const second = await startServer(env);
    try {
      const report = await raceOverlappingBulk([first.url, second.url]);
      t.diagnostic(JSON.stringify(report));
      assert.equal(report.created, report.distinctIds);
      assert.ok(report.alreadyExists > 0, 'the batches did overlap');
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });
});
