import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { gatherById, gatherOne } from '../../src/store/gathered-reads.ts';

/** Reads asked in one turn of the event loop, answered together (both stores use these). */

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('gatherById', () => {
  test('reads asked in one turn are one call; each caller gets its own id, missing ones nothing', async () => {
    const calls: number[][] = [];
    const get = gatherById(async (ids) => {
      calls.push(ids);
      return new Map(ids.filter((id) => id % 2 === 0).map((id) => [id, `term ${id}`]));
    });
    const asked = [4, 3, 4, 8, 0, -2, 3];
    const answers = await Promise.all(asked.map(get));
    assert.deepEqual(answers, [
      'term 4',
      undefined,
      'term 4',
      'term 8',
      'term 0',
      'term -2',
      undefined,
    ]);
    assert.deepEqual(calls, [[4, 3, 8, 0, -2]], 'one call, each id once, in the order first asked');
    // The next turn is a call of its own: nothing is kept between turns.
    assert.equal(await get(4), 'term 4');
    assert.equal(calls.length, 2);
  });

  test('a call asks for at most 128 ids; more asked in one turn make several calls', async () => {
    const calls: number[][] = [];
    const get = gatherById(async (ids) => {
      calls.push(ids);
      return new Map(ids.map((id) => [id, id * 10]));
    });
    const asked = Array.from({ length: 300 }, (_, i) => i);
    assert.deepEqual(
      await Promise.all(asked.map(get)),
      asked.map((id) => id * 10),
    );
    assert.deepEqual(
      calls.map((ids) => ids.length),
      [128, 128, 44],
    );
  });

  test('a failed call fails each of its callers, and the next turn is asked again', async () => {
    let fail = true;
    const get = gatherById(async (ids) => {
      if (fail) throw new Error('connection lost');
      return new Map(ids.map((id) => [id, id]));
    });
    const results = await Promise.allSettled([get(1), get(2), get(1)]);
    assert.deepEqual(
      results.map((r) => r.status === 'rejected' && (r.reason as Error).message),
      ['connection lost', 'connection lost', 'connection lost'],
    );
    fail = false;
    assert.equal(await get(1), 1);
  });
});

describe('gatherOne', () => {
  test('callers in one turn share one read made after they asked; the next turn reads again', async () => {
    let value = 1;
    let reads = 0;
    const read = gatherOne(async () => {
      reads += 1;
      return value;
    });
    const first = read();
    value = 2; // changed after the first caller asked, in the same turn: the read sees it
    const second = read();
    assert.deepEqual(await Promise.all([first, second]), [2, 2]);
    assert.equal(reads, 1);
    await nextTurn();
    value = 3;
    assert.equal(await read(), 3);
    assert.equal(reads, 2);
  });

  test('a failed read fails its callers only', async () => {
    let fail = true;
    const read = gatherOne(async () => {
      if (fail) throw new Error('gone');
      return 'ok';
    });
    await assert.rejects(Promise.all([read(), read()]), /gone/);
    fail = false;
    assert.equal(await read(), 'ok');
  });
});
