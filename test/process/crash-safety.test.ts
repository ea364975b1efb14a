import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { backends } from '../helpers/backends.ts';
import { runCrashCycles } from '../helpers/crash-harness.ts';
import { killLeftovers } from '../helpers/server-process.ts';

/**
 * SIGKILL the real server at random moments under concurrent single and bulk writers, restart,
 * and prove nothing acknowledged is lost and no batch is stored in part, on every backend.
 * `npm test` runs a few cycles; `npm run test:crash` runs CRASH_CYCLES (50 there). CRASH_SEED
 * repeats a run.
 */

const cycles = Number(process.env.CRASH_CYCLES ?? 3);
const seed = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));

for (const backend of backends()) {
  // WORKERS=2: the supervisor and both workers are SIGKILLed together, like a machine crash.
  for (const workers of ['1', '2']) {
    describe(`crash safety (${backend.name}, WORKERS=${workers})`, () => {
      test(`SIGKILL under concurrent writers loses no acknowledged write over ${cycles} cycles`, async (t) => {
        const location = await backend.location();
        try {
          const report = await runCrashCycles({
            env: { DATABASE_URL: location.url, WORKERS: workers },
            cycles,
            seed,
          });
          t.diagnostic(`seed ${seed}: ${JSON.stringify(report)}`);
          assert.equal(report.cycles, cycles);
          assert.equal(report.termsFound, report.termsAcknowledged);
          assert.ok(report.requestsAcknowledged >= cycles);
          const { edits, deletes, restores } = report.edited;
          assert.ok(edits + deletes + restores >= cycles, 'every cycle edited terms too');
        } finally {
          await killLeftovers();
          await location.dispose();
        }
      });
    });
  }
}

/** Terminates every connection the service holds to `database`, from an admin connection. */
async function terminateBackends(serverUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ terminated: boolean }>(
      'SELECT pg_terminate_backend(pid, 10000) AS terminated FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [database],
    );
    assert.ok(rows.length > 0, 'the service had connections to terminate');
  } finally {
    await client.end();
  }
}

const postgres = backends().find((backend) => backend.name === 'postgres');
if (postgres) {
  describe('lost PostgreSQL connections (postgres)', () => {
    test(`connections terminated under concurrent writers, ${cycles} times: nothing acknowledged is lost`, async (t) => {
      const location = await postgres.location();
      const database = new URL(location.url).pathname.slice(1);
      const serverUrl = process.env.TEST_DATABASE_URL as string;
      try {
        const report = await runCrashCycles({
          env: { DATABASE_URL: location.url },
          cycles,
          seed,
          disrupt: () => terminateBackends(serverUrl, database),
        });
        t.diagnostic(`seed ${seed}: ${JSON.stringify(report)}`);
        assert.equal(report.termsFound, report.termsAcknowledged);
      } finally {
        await killLeftovers();
        await location.dispose();
      }
    });
  });
}
