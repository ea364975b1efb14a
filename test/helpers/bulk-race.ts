import assert from 'node:assert/strict';
import { sampleTerm } from './app.ts';

/**
 * The bulk race used in-process and across processes: many batches whose ids overlap heavily,
 * sent at once, and the checks that every id was created exactly once.
 */

export type Batch = ReturnType<typeof sampleTerm>[];

/** `requests` batches of `size` distinct ids drawn from 0..ids-1, overlapping in many ids. */
export function raceBatches(options: { requests: number; size: number; ids: number }): Batch[] {
  return Array.from({ length: options.requests }, (_, r) =>
    // 5k mod ids is distinct for k < ids / 5, so each batch has distinct ids.
    Array.from({ length: options.size }, (_, k) => {
      const id = (r * 7 + k * 5) % options.ids;
      return sampleTerm(id, { term: `Term ${id} from request ${r}` });
    }),
  );
}

interface Result {
  index: number;
  status: string;
  id?: number;
  detail?: string;
}

/**
 * Every bulk result is "created" or "already exists"; no id is created by the bulk path more
 * than once, nor when it was stored before (`preexisting`); an id stored by no one else is
 * created by exactly one batch. `posted` lists ids sent through POST /terms during the race
 * (which never checks): those may or may not have been created by a batch too.
 */
export function checkRaceOutcome(race: {
  batches: Batch[];
  results: unknown[];
  listedIds: number[];
  preexisting: number[];
  posted?: number[];
}): void {
  const creations = new Map<number, number>();
  const all = new Set<number>([...race.preexisting, ...(race.posted ?? [])]);
  race.batches.forEach((batch, r) => {
    const results = race.results[r] as Result[];
    assert.equal(results.length, batch.length);
    results.forEach((result, i) => {
      const id = batch[i]?.id as number;
      all.add(id);
      assert.equal(result.index, i);
      if (result.status === 'created') {
        assert.equal(result.id, id);
        creations.set(id, (creations.get(id) ?? 0) + 1);
      } else {
        assert.deepEqual(result, {
          index: i,
          status: 'error',
          detail: `Term with ID ${id} already exists.`,
        });
      }
    });
  });
  const stored = new Map<number, number>();
  for (const id of race.listedIds) stored.set(id, (stored.get(id) ?? 0) + 1);
  for (const id of all) {
    const created = creations.get(id) ?? 0;
    const posted = (race.posted ?? []).filter((p) => p === id).length;
    if (race.preexisting.includes(id)) {
      assert.equal(created, 0, `id ${id} was stored before, yet a batch created it`);
    } else if (posted === 0) {
      assert.equal(created, 1, `id ${id} created ${created} times`);
    } else {
      assert.ok(created <= 1, `id ${id} created ${created} times by batches`);
    }
    const expected = created + posted + (race.preexisting.includes(id) ? 1 : 0);
    assert.equal(stored.get(id) ?? 0, expected, `id ${id} is stored ${expected} times`);
  }
  assert.equal(
    race.listedIds.length,
    [...stored.values()].reduce((a, b) => a + b, 0),
  );
  assert.deepEqual(new Set(race.listedIds), all);
}
