import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { changeRecord } from '../../src/glossary/changes.ts';
import type { HistoryEntry } from '../../src/glossary/history.ts';
import {
  deliveryBody,
  isSecret,
  newSecret,
  webhookHeaders,
  webhookId,
} from '../../src/webhooks/signing.ts';

/** Signatures checked by the `standardwebhooks` package: a verifier nobody here wrote. */

const entry: HistoryEntry = {
  revision: 42,
  action: 'updated',
  at: Date.UTC(2026, 10, 27, 4, 0, 0),
  by: 'ci',
  term: {
    id: 7,
    term: 'Idempotency key',
    definition: 'A key «that» makes a retry safe.',
    category: 'backend',
    see_also: [3],
  },
};

describe('webhook signing (Standard Webhooks 1.0)', () => {
  test('newSecret makes whsec_ and the base64 of 32 random bytes, a new one each time', () => {
    const secret = newSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
    assert.notEqual(newSecret(), secret);
    assert.ok(isSecret(secret));
    assert.ok(!isSecret('whsec_short'));
    assert.ok(!isSecret(secret.slice(6)));
  });

  test('the body is {type, timestamp, data} with the change as the feed shows it', () => {
    const body = JSON.parse(deliveryBody(entry));
    assert.deepEqual(body, {
      type: 'term.updated',
      timestamp: '2026-11-27T04:00:00.000Z',
      data: {
        revision: 42,
        type: 'term.updated',
        id: 7,
        at: '2026-11-27T04:00:00.000Z',
        by: 'ci',
        term: entry.term,
      },
    });
    assert.deepEqual(body.data, JSON.parse(JSON.stringify(changeRecord(entry))));
  });

  test('a delivery verifies with the endpoint secret; the id is stable, the timestamp is the attempt', () => {
    const secret = newSecret();
    const body = deliveryBody(entry);
    const id = webhookId(entry.revision, 3);
    assert.equal(id, 'msg_42_3');
    const headers = webhookHeaders([secret], id, body, Date.now());
    assert.match(headers['webhook-timestamp'] ?? '', /^\d+$/);
    assert.match(headers['webhook-signature'] ?? '', /^v1,[A-Za-z0-9+/]+=*$/);
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));

    assert.throws(() => new Webhook(newSecret()).verify(body, headers), /signature/i);
    assert.throws(() => new Webhook(secret).verify(`${body} `, headers), /signature/i);
    const stale = webhookHeaders([secret], id, body, Date.now() - 60 * 60 * 1000);
    assert.throws(() => new Webhook(secret).verify(body, stale), /timestamp/i);
  });

  test('after a rotation both secrets sign: a receiver holding either verifies', () => {
    const previous = newSecret();
    const current = newSecret();
    const body = deliveryBody(entry);
    const headers = webhookHeaders([current, previous], webhookId(42, 1), body, Date.now());
    assert.equal(headers['webhook-signature']?.split(' ').length, 2);
    assert.deepEqual(new Webhook(current).verify(body, headers), JSON.parse(body));
    assert.deepEqual(new Webhook(previous).verify(body, headers), JSON.parse(body));
    assert.throws(() => new Webhook(newSecret()).verify(body, headers), /signature/i);
  });
});
