import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { tempDir } from './helpers/backends.ts';
import { runCrashCycles } from './helpers/crash-harness.ts';

/**
 * SIGKILL the real server at random moments under concurrent single and bulk writers, restart,
 * and prove nothing acknowledged is lost and no batch is stored in part. `npm test` runs a few
 * cycles; `npm run test:crash` runs CRASH_CYCLES (50 there). CRASH_SEED repeats a run.
 */

const cycles = Number(process.env.CRASH_CYCLES ?? 3);
const seed = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));

describe('crash safety (sqlite)', () => {
  test(`SIGKILL under concurrent writers loses no acknowledged write over ${cycles} cycles`, async (t) => {
    const file = path.join(tempDir(), 'glossary.db');
    const report = await runCrashCycles({ env: { DATABASE_URL: `sqlite:${file}` }, cycles, seed });
    t.diagnostic(`seed ${seed}: ${JSON.stringify(report)}`);
    assert.equal(report.cycles, cycles);
    assert.equal(report.termsFound, report.termsAcknowledged);
    assert.ok(report.requestsAcknowledged >= cycles);
  });
});
