import assert from 'node:assert/strict';
import os from 'node:os';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('WORKERS setting', () => {
  test('defaults to one process', () => {
    assert.equal(loadConfig({}).workers, 1);
  });

  test('takes a number of processes, and auto is one per core', () => {
    assert.equal(loadConfig({ WORKERS: '3' }).workers, 3);
    assert.equal(loadConfig({ WORKERS: 'auto' }).workers, os.availableParallelism());
    assert.equal(loadConfig({ WORKERS: 'AUTO' }).workers, os.availableParallelism());
  });

  for (const bad of ['0', '65', '-1', '1.5', 'two']) {
    test(`refuses WORKERS=${bad} with a clear message`, () => {
      assert.throws(
        () => loadConfig({ WORKERS: bad }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.message ===
            `invalid configuration: WORKERS=${JSON.stringify(bad)} must be auto or a whole number from 1 to 64`,
      );
    });
  }
});
