import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { killLeftovers, startServer } from '../helpers/server-process.ts';

/**
 * Concurrent bulk imports with overlapping ids through several real server processes on one
 * database, each with two workers (four processes in all): the bulk path creates each id
 * exactly once, whichever process gets it first.
 */

interface RaceReport {
  requests: number;
  itemsSent: number;
  created: number;
  alreadyExists: number;
  duplicateInBatch: number;
  distinctIds: number;
}

async function raceOverlappingBulk(
  urls: string[],
  { requests = 24, size = 60, idSpace = 300 } = {},
): Promise<RaceReport> {
  const batches = Array.from({ length: requests }, (_, r) =>
    Array.from({ length: size }, (_, i) => {
      // Every batch walks the id space from its own offset and stride, so batches overlap.
      const id = (r * 37 + i * (1 + (r % 7))) % idSpace;
      return { id, term: `Term ${id}`, definition: `From batch ${r}.`, category: 'devops' };
    }),
  );
  const responses = await Promise.all(
    batches.map(async (batch, r) => {
      const response = await fetch(`${urls[r % urls.length]}/terms/bulk`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(batch),
      });
      assert.equal(response.status, 207);
      return (await response.json()) as { status: string; id?: number; detail?: string }[];
    }),
  );

  const createdBy = new Map<number, number>();
  const report: RaceReport = {
    requests,
    itemsSent: requests * size,
    created: 0,
    alreadyExists: 0,
    duplicateInBatch: 0,
    distinctIds: 0,
  };
  for (const results of responses) {
    for (const result of results) {
      if (result.status === 'created' && result.id !== undefined) {
        report.created++;
        createdBy.set(result.id, (createdBy.get(result.id) ?? 0) + 1);
      } else if (/already exists/.test(result.detail ?? '')) report.alreadyExists++;
      else if (/Duplicate ID/.test(result.detail ?? '')) report.duplicateInBatch++;
      else assert.fail(`unexpected result ${JSON.stringify(result)}`);
    }
  }
  const sentIds = new Set(batches.flat().map((term) => term.id));
  report.distinctIds = sentIds.size;
  for (const id of sentIds) assert.equal(createdBy.get(id), 1, `id ${id} created once`);

  const listed = await fetch(`${urls[0]}/terms`);
  const stored = ((await listed.json()) as { id: number }[]).map((term) => term.id);
  assert.equal(stored.length, sentIds.size, 'each id stored once');
  assert.deepEqual(new Set(stored), sentIds);
  return report;
}

for (const backend of backends()) {
  describe(`concurrent bulk imports (${backend.name})`, () => {
    after(killLeftovers);

    test('two processes with WORKERS=2 each on one database create each id exactly once', async (t) => {
      const location = await backend.location();
      const env = { DATABASE_URL: location.url, WORKERS: '2' };
      const first = await startServer(env);
      const second = await startServer(env);
      try {
        // Every worker listening (the supervisor says `ready` once all are).
        for (const server of [first, second]) {
          await server.waitForLog((line) => line.msg === 'ready' && line.workers === 2);
        }
        // Several connections per process, so the cluster spreads them over both workers.
        const report = await raceOverlappingBulk([first.url, second.url]);
        t.diagnostic(JSON.stringify(report));
        assert.equal(report.created, report.distinctIds);
        assert.ok(report.alreadyExists > 0, 'the batches did overlap');
        for (const server of [first, second]) {
          const workers = new Set(
            server.logs
              .filter((line) => line.msg === 'request completed' && line.url === '/terms/bulk')
              .map((line) => line.pid),
          );
          assert.equal(workers.size, 2, 'both workers of each process took bulk requests');
        }
      } finally {
        await Promise.all([first.stop(), second.stop()]);
        await location.dispose();
      }
    });
  });
}
