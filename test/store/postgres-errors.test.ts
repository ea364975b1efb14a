import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { StoreUnavailableError } from '../../src/store/errors.ts';
import {
  describeError,
  isUnavailable,
  redactUrl,
  rethrow,
} from '../../src/store/postgres/errors.ts';

const withCode = (code: string, message = `failure ${code}`) =>
  Object.assign(new Error(message), { code });

describe('PostgreSQL error classification', () => {
  test('lost connections, shutdowns, resource exhaustion and read-only servers are unavailability', () => {
    for (const code of [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      '08006',
      '08001',
      '57P01',
      '57P03',
      '53300',
      '53100',
      '58030',
      '40001',
      '40P01',
      '25006',
    ]) {
      assert.ok(isUnavailable(withCode(code)), code);
    }
    assert.ok(isUnavailable(new Error('Connection terminated unexpectedly')));
    assert.ok(isUnavailable(new Error('timeout exceeded when trying to connect')));
    assert.ok(isUnavailable(new AggregateError([withCode('ECONNREFUSED', '')], '')));
  });

  test('errors of the statement itself stay internal errors (500)', () => {
    for (const code of ['42P01', '23514', '22021', '42601', '2BP01']) {
      assert.equal(isUnavailable(withCode(code)), false, code);
    }
    assert.equal(isUnavailable(new TypeError('x is undefined')), false);
    const syntax = withCode('42601');
    assert.throws(
      () => rethrow(syntax, 'query failed'),
      (error) => error === syntax,
    );
    assert.throws(() => rethrow(withCode('57P01'), 'query failed'), StoreUnavailableError);
  });

  test('messages name the failure even when Node gives none, and never the password', () => {
    const refused = new AggregateError(
      [withCode('ECONNREFUSED', 'connect ECONNREFUSED ::1:5432')],
      '',
    );
    assert.equal(describeError(refused), 'connect ECONNREFUSED ::1:5432');
    assert.equal(describeError(withCode('ECONNRESET', '')), 'ECONNRESET');
    assert.equal(
      redactUrl('postgres://app:s3cret@db:5432/glossary'),
      'postgres://app:***@db:5432/glossary',
    );
    assert.equal(redactUrl('postgres://app@db/glossary'), 'postgres://app@db/glossary');
  });
});
