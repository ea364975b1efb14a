import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { newToken } from '../../src/glossary/access.ts';
import { openStore } from '../../src/store/open-store.ts';
import { tempDir } from '../helpers/backends.ts';
import { killLeftovers, type LogLine, startServer } from '../helpers/server-process.ts';

/** "With writes open on a non-loopback address the service logs a warning at start." */

const OPEN = /^writes are open to anyone who can reach this address/;
const isOpenWarning = (line: LogLine) => line.level === 40 && OPEN.test(String(line.msg));

describe('start-up warnings about access', () => {
  after(killLeftovers);

  test('no token and a non-loopback address: one warning, also with WORKERS=2', async () => {
    for (const workers of ['1', '2']) {
      const database = `sqlite:${path.join(tempDir(), 'glossary.db')}`;
      const server = await startServer({
        HOST: '0.0.0.0',
        DATABASE_URL: database,
        WORKERS: workers,
      });
      try {
        await server.waitForLog(
          (line) => line.msg === 'ready' && (workers === '1' || line.workers === 2),
        );
        assert.equal(server.logs.filter(isOpenWarning).length, 1, `WORKERS=${workers}`);
      } finally {
        await server.stop();
      }
    }
  });

  test('no warning on loopback, nor once a token exists', async () => {
    const file = path.join(tempDir(), 'glossary.db');
    const loopback = await startServer({ DATABASE_URL: `sqlite:${file}` });
    await loopback.waitForLog((line) => line.msg === 'ready');
    await loopback.stop();
    assert.equal(loopback.logs.filter(isOpenWarning).length, 0);

    const store = await openStore({
      database: { kind: 'sqlite', path: file },
      sqliteSynchronous: 'full',
      pgPoolSize: 1,
    });
    await store.addToken(newToken('ci', 'write').stored);
    await store.close();
    const open = await startServer({ HOST: '0.0.0.0', DATABASE_URL: `sqlite:${file}` });
    await open.waitForLog((line) => line.msg === 'ready');
    await open.stop();
    assert.equal(open.logs.filter(isOpenWarning).length, 0);
  });
});
