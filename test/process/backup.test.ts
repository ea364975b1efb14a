import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { sampleTerm } from '../helpers/app.ts';
import { tempDir } from '../helpers/backends.ts';
import { runCli } from '../helpers/run-cli.ts';
import { killLeftovers, startServer } from '../helpers/server-process.ts';

const TIMEOUT = { timeout: 120_000 };

describe('glossary backup', () => {
  after(killLeftovers);

  test(
    'a copy taken under write load holds every term acknowledged before it began',
    TIMEOUT,
    async () => {
      const dir = tempDir();
      const database = `sqlite:${path.join(dir, 'glossary.db')}`;
      const live = await startServer({ DATABASE_URL: database });
      const acknowledged: number[] = [];
      let writing = true;
      // Four writers, each POSTing and bulk-importing terms until the backup is done.
      const writers = [0, 1, 2, 3].map(async (writer) => {
        for (let n = 0; writing; n += 1) {
          const id = writer * 1_000_000 + n;
          const bulk = n % 5 === 0;
          const response = await fetch(`${live.url}/terms${bulk ? '/bulk' : ''}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(bulk ? [sampleTerm(id)] : sampleTerm(id)),
          });
          assert.ok(response.status === 201 || response.status === 207);
          await response.arrayBuffer();
          acknowledged.push(id);
        }
      });
      while (acknowledged.length < 300) await new Promise((resolve) => setTimeout(resolve, 20));

      const before = new Set(acknowledged);
      const copy = path.join(dir, 'copy.db');
      const run = await runCli(['backup', copy], {
        env: { ...process.env, DATABASE_URL: database },
      });
      const during = acknowledged.length;
      writing = false;
      await Promise.all(writers);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /copy\.db: \d+ terms, [\d.]+ MB, checked\n$/);
      assert.ok(during > before.size, 'the service went on writing during the backup');
      await live.stop();

      const restored = await startServer({ DATABASE_URL: `sqlite:${copy}` });
      const terms = (await (await fetch(`${restored.url}/terms`)).json()) as { id: number }[];
      const ids = new Set(terms.map((term) => term.id));
      const missing = [...before].filter((id) => !ids.has(id));
      assert.deepEqual(missing, [], 'terms acknowledged before the backup began');
      assert.equal(ids.size, terms.length, 'no term twice');
      assert.ok(
        terms.every((term) => acknowledged.includes(term.id)),
        'only terms that were written',
      );
      assert.equal(Number(/: (\d+) terms/.exec(run.stdout)?.[1]), terms.length);
      // The copy is a glossary like any other: it takes writes.
      const created = await fetch(`${restored.url}/terms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(sampleTerm(-1)),
      });
      assert.equal(created.status, 201);
      await restored.stop();
    },
  );

  test(
    'refuses an existing file, a missing store and PostgreSQL, in one line each',
    TIMEOUT,
    async () => {
      const dir = tempDir();
      const existing = path.join(dir, 'taken.db');
      fs.writeFileSync(existing, 'precious');
      const cases: [string, string, RegExp][] = [
        [
          `sqlite:${path.join(dir, 'none.db')}`,
          path.join(dir, 'a.db'),
          /there is no database at .*none\.db/,
        ],
        ['postgres://user:secret@127.0.0.1:1/glossary', path.join(dir, 'b.db'), /pg_dump/],
      ];
      for (const [database, target, message] of cases) {
        const run = await runCli(['backup', target], {
          env: { ...process.env, DATABASE_URL: database },
        });
        assert.equal(run.code, 1);
        assert.match(run.stderr, message);
        assert.equal(run.stderr.trim().split('\n').length, 1);
        assert.equal(fs.existsSync(target), false);
      }
      const live = path.join(dir, 'live.db');
      const server = await startServer({ DATABASE_URL: `sqlite:${live}` });
      await server.stop();
      const run = await runCli(['backup', existing], {
        env: { ...process.env, DATABASE_URL: `sqlite:${live}` },
      });
      assert.equal(run.code, 1);
      assert.match(run.stderr, /taken\.db exists already/);
      assert.equal(fs.readFileSync(existing, 'utf8'), 'precious');
    },
  );
});
