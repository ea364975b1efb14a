import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startApp } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';
import { listenApp } from '../helpers/listening-app.ts';

/**
 * GET /changes under headers a careless or hostile client sends (changes-and-webhooks.md).
 * 1. A Last-Event-ID that is not a revision is refused saying what is wrong with it (its form),
 *    not with the message of an empty string.
 * 2. `Accept: text/event-stream;q=0` says "not an event stream" (RFC 9110, 12.4.2), and
 *    `text/event-streamx` is another type: both must answer JSON.
 */
for (const backend of backends()) {
  describe(`GET /changes, hostile headers (${backend.name})`, () => {
    test('a Last-Event-ID that is no revision gets a message about its form, not its length', async () => {
      const t = await startApp(backend);
      try {
        const response = await t.app.inject({
          url: '/changes',
          headers: { accept: 'text/event-stream', 'last-event-id': 'abc' },
        });
        assert.equal(response.statusCode, 422);
        const { detail } = response.json() as { detail: { msg: string }[] };
        assert.equal(detail[0]?.msg, 'string does not match regex "^[0-9]{1,15}$"');
      } finally {
        await t.close();
      }
    });

    for (const accept of [
      'text/event-stream;q=0',
      'application/json, text/event-stream;q=0',
      'text/event-streamx',
    ]) {
      test(`Accept: ${accept} answers JSON`, async () => {
        const served = await listenApp(backend);
        const stop = new AbortController();
        try {
          // Over a real socket: a stream answered by mistake would never end an inject.
          const response = await fetch(`${served.url}/changes`, {
            headers: { accept },
            signal: stop.signal,
          });
          assert.equal(response.status, 200);
          assert.match(String(response.headers.get('content-type')), /^application\/json/);
        } finally {
          stop.abort();
          await served.close();
        }
      });
    }
  });
}
