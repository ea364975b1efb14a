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

export function checkRaceOutcome(race: {
  batches: Batch[];
  results: unknown[];
  listedIds: number[];
  preexisting: number[];
}): void {
  const creations = new Map<number, number>();
  const all = new Set<number>(race.preexisting);
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
  for (const id of all) {
    const expected = race.preexisting.includes(id) ? 0 : 1;
    assert.equal(creations.get(id) ?? 0, expected, `id ${id} created ${creations.get(id)} times`);
  }
  assert.equal(race.listedIds.length, all.size, 'every id is stored exactly once');
  assert.deepEqual(new Set(race.listedIds), all);
}
