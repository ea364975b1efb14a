import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Webhook as Verifier } from 'standardwebhooks';
import type { Term } from '../../src/glossary/term.ts';
import { startDeliverer } from '../../src/webhooks/deliverer.ts';
import { sampleTerm } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';
import { eventually } from '../helpers/eventually.ts';
import { runCli } from '../helpers/run-cli.ts';
import { startReceiver } from '../webhooks/receiver.ts';

/** `glossary webhook add | list | remove | deliveries | rotate`, with a deliverer running. */

const quiet = { info() {}, warn() {} };

for (const backend of backends()) {
  describe(`glossary webhook (${backend.name})`, () => {
    test('add prints the secret once, deliveries are signed with it, list/deliveries/rotate/remove', async () => {
      const location = await backend.location();
      const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: location.url };
      delete env.WEBHOOK_ALLOW_PRIVATE;
      const store = await location.open();
      const receiver = await startReceiver();
      receiver.answer('/gone', () => ({ status: 410 }));
      const deliverer = startDeliverer({
        store,
        log: quiet,
        config: {
          webhookAllowPrivate: true,
          webhookRetrySchedule: [50],
          webhookTimeoutMs: 5000,
        },
        tickMs: 50,
        renewMs: 100,
        leaseMs: 1000,
      });
      try {
        const empty = await runCli(['webhook', 'list'], { env });
        assert.equal(empty.code, 0, empty.stderr);
        assert.equal(empty.stdout, 'No webhooks.\n');

        const url = receiver.url('/hook');
        const host = new URL(url).host;
        const added = await runCli(
          ['webhook', 'add', url, '--types', 'term.created,term.deleted'],
          { env },
        );
        assert.equal(added.code, 0, added.stderr);
        const secret = added.stdout.trim();
        assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
        assert.match(
          added.stderr,
          new RegExp(
            `webhook '${host}' added; it receives term\\.created, term\\.deleted committed after revision ${await store.latestRevision()}\\.`,
          ),
        );
        assert.match(added.stderr, /shown only this once/);
        assert.match(
          added.stderr,
          /warning: 127\.0\.0\.1 is a loopback address: .*WEBHOOK_ALLOW_PRIVATE=true/,
        );

        const taken = await runCli(['webhook', 'add', url], { env });
        assert.equal(taken.code, 1);
        assert.match(taken.stderr, /^glossary: a webhook named '127\.0\.0\.1:\d+' exists already/m);
        for (const bad of [
          ['webhook', 'add', 'ftp://example.com/'],
          ['webhook', 'add', 'https://bob:s3cret@example.com/hook'],
          ['webhook', 'add', `https://example.com/${'x'.repeat(2000)}`],
          ['webhook', 'add', 'https://example.com/', '--types', 'term.created,term.renamed'],
          ['webhook', 'add', 'https://example.com/', '--name', 'no spaces'],
          ['webhook', 'deliveries', 'x', '--limit', '0'],
        ]) {
          const run = await runCli(bad, { env });
          assert.equal(run.code, 2, `${bad.join(' ')}: ${run.stderr}`);
        }
        const gone = await runCli(['webhook', 'add', receiver.url('/gone'), '--name', 'gone'], {
          env,
        });
        assert.equal(gone.code, 0, gone.stderr);

        await store.create(sampleTerm(1) as Term);
        await store.update(1, (t) => ({ ...t, definition: 'Changed.' }), { by: null });
        await store.remove(1, () => undefined, { by: null });
        await eventually(() => receiver.at('/hook').length === 2, 'created and deleted delivered');
        const [created, deleted] = receiver.at('/hook').map((r) => {
          const body = new Verifier(secret).verify(r.body, r.headers) as {
            data: { revision: number };
          };
          return body.data.revision;
        });
        await eventually(
          async () => (await store.listWebhooks()).some((w) => w.state === 'disabled'),
          'gone disabled',
        );
        await eventually(
          async () =>
            (await store.listWebhooks()).some((w) => w.lastDelivery?.revision === deleted),
          'the last delivery recorded',
        );

        const listed = await runCli(['webhook', 'list'], { env });
        assert.equal(listed.code, 0, listed.stderr);
        const lines = listed.stdout.trimEnd().split('\n');
        assert.match(lines[0] ?? '', /^NAME\s+URL\s+TYPES\s+LAST DELIVERY\s+STATE$/);
        const row = (name: string) => lines.find((line) => line.startsWith(`${name} `)) ?? '';
        assert.match(
          row(host),
          new RegExp(
            `\\s+http://127\\.0\\.0\\.1:\\d+/hook\\s+term\\.created,term\\.deleted\\s+\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z r${deleted} 204\\s+active$`,
          ),
        );
        assert.match(
          row('gone'),
          new RegExp(
            `\\s+all\\s+\\S+ r${created} HTTP 410\\s+disabled: the endpoint answered 410 Gone$`,
          ),
        );
        assert.ok(!listed.stdout.includes(secret.slice(6)), 'list never shows a secret');

        const deliveries = await runCli(['webhook', 'deliveries', host], { env });
        assert.equal(deliveries.code, 0, deliveries.stderr);
        const attempts = deliveries.stdout.trimEnd().split('\n');
        assert.match(attempts[0] ?? '', /^REVISION\s+TIME\s+STATUS\s+DURATION\s+ERROR$/);
        assert.match(
          attempts[1] ?? '',
          new RegExp(`^${deleted}\\s+\\d{4}-[\\dT:.-]+Z\\s+204\\s+\\d+ ms$`),
        );
        assert.match(attempts[2] ?? '', new RegExp(`^${created}\\s+\\S+\\s+204\\s+\\d+ ms$`));
        const one = await runCli(['webhook', 'deliveries', host, '--limit', '1'], { env });
        assert.equal(one.stdout.trimEnd().split('\n').length, 2);
        const goneAttempts = await runCli(['webhook', 'deliveries', 'gone'], { env });
        assert.match(
          goneAttempts.stdout,
          new RegExp(`\\n${created}\\s+\\S+\\s+410\\s+\\d+ ms\\s+HTTP 410\\n$`),
        );

        const rotated = await runCli(['webhook', 'rotate', host], { env });
        assert.equal(rotated.code, 0, rotated.stderr);
        const fresh = rotated.stdout.trim();
        assert.match(fresh, /^whsec_/);
        assert.notEqual(fresh, secret);
        assert.match(rotated.stderr, /the previous one also signs every delivery until \d{4}-/);
        let id = 2;
        await eventually(async () => {
          await store.create(sampleTerm(id) as Term);
          id += 1;
          return receiver.at('/hook').at(-1)?.signature.split(' ').length === 2;
        }, 'a delivery signed with both secrets');
        const last = receiver.at('/hook').at(-1);
        assert.ok(last);
        new Verifier(secret).verify(last.body, last.headers);
        new Verifier(fresh).verify(last.body, last.headers);

        const removed = await runCli(['webhook', 'remove', 'gone'], { env });
        assert.equal(removed.code, 0, removed.stderr);
        assert.equal(removed.stdout, "Webhook 'gone' removed.\n");
        for (const args of [
          ['webhook', 'remove', 'gone'],
          ['webhook', 'deliveries', 'gone'],
          ['webhook', 'rotate', 'gone'],
        ]) {
          const run = await runCli(args, { env });
          assert.equal(run.code, 1, args.join(' '));
          assert.match(run.stderr, /^glossary: store: .*\nglossary: no webhook is named 'gone'\n$/);
        }
      } finally {
        await deliverer.stop();
        await receiver.close();
        await store.close();
        await location.dispose();
      }
    });
  });
}
