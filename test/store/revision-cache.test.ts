import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RevisionCache } from '../../src/store/revision-cache.ts';

/** The PostgreSQL store's cache of counts and rankings, by revision. */

/** A computation that ends when told to, counting how often it was started. */
function gate<T>() {
  let started = 0;
  let finish: (value: T) => void = () => {};
  let fail: (error: Error) => void = () => {};
  const compute = () => {
    started += 1;
    return new Promise<T>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
  };
  return {
    compute,
    started: () => started,
    finish: (v: T) => finish(v),
    fail: (e: Error) => fail(e),
  };
}

describe('RevisionCache', () => {
  test('concurrent requests for one value at one revision share one computation', async () => {
    const cache = new RevisionCache<number>();
    const count = gate<number>();
    const asked = Array.from({ length: 32 }, () =>
      cache.get('r1', { q: 'cluster' }, count.compute),
    );
    count.finish(121_090);
    assert.deepEqual(new Set(await Promise.all(asked)), new Set([121_090]));
    assert.equal(count.started(), 1);
    // Kept for that revision; another revision computes afresh.
    assert.equal(await cache.get('r1', { q: 'cluster' }, count.compute), 121_090);
    assert.equal(count.started(), 1);
    const later = cache.get('r2', { q: 'cluster' }, count.compute);
    count.finish(121_091);
    assert.equal(await later, 121_091);
    assert.equal(count.started(), 2);
  });

  test('a different value, or one at a newer revision, does not wait for a running one', async () => {
    const cache = new RevisionCache<number>();
    const [first, other, newer] = [gate<number>(), gate<number>(), gate<number>()];
    const asked = [
      cache.get('r1', { q: 'a' }, first.compute),
      cache.get('r1', { q: 'b' }, other.compute),
      cache.get('r2', { q: 'a' }, newer.compute),
    ];
    assert.deepEqual([first.started(), other.started(), newer.started()], [1, 1, 1]);
    newer.finish(3);
    other.finish(2);
    first.finish(1);
    assert.deepEqual(await Promise.all(asked), [1, 2, 3]);
  });

  test('a failed computation fails its waiters and is not kept', async () => {
    const cache = new RevisionCache<number>();
    const count = gate<number>();
    const asked = [cache.get('r1', {}, count.compute), cache.get('r1', {}, count.compute)];
    count.fail(new Error('connection terminated'));
    for (const result of await Promise.allSettled(asked)) {
      assert.equal(result.status, 'rejected');
    }
    assert.equal(count.started(), 1);
    const again = cache.get('r1', {}, count.compute);
    count.finish(7);
    assert.equal(await again, 7);
    assert.equal(count.started(), 2);
  });

  test('recent answers a value of an earlier revision while it is young; current only its own', async () => {
    const cache = new RevisionCache<number>();
    await cache.get('r1', { q: 'a' }, async () => 5);
    assert.equal(cache.current('r1', { q: 'a' }), 5);
    assert.equal(cache.current('r2', { q: 'a' }), undefined);
    assert.equal(cache.recent({ q: 'a' }, 60_000), 5);
    assert.equal(cache.recent({ q: 'b' }, 60_000), undefined);
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(cache.recent({ q: 'a' }, 1), undefined);
  });
});
