import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { readableLine } from '../src/logging.ts';
import { tempDir } from './helpers/backends.ts';
import { killLeftovers, runServer, startServer } from './helpers/server-process.ts';

describe('logs', () => {
  after(killLeftovers);

  test('JSON lines carry an ISO time and, per request, the client address', {
    timeout: 60_000,
  }, async () => {
    const server = await startServer({
      DATABASE_URL: `sqlite:${path.join(tempDir(), 'g.db')}`,
      LOG_FORMAT: 'json',
    });
    await fetch(`${server.url}/terms/7`);
    const line = await server.waitForLog((entry) => entry.msg === 'request completed');
    assert.match(String(line.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(line.remoteAddress, '127.0.0.1');
    assert.equal(line.method, 'GET');
    assert.equal(line.url, '/terms/7');
    assert.equal(line.statusCode, 404);
    assert.equal(typeof line.reqId, 'string');
    await server.stop();
  });

  test('LOG_FORMAT=pretty writes one readable line per event', { timeout: 60_000 }, async () => {
    const server = runServer({
      DATABASE_URL: `sqlite:${path.join(tempDir(), 'g.db')}`,
      LOG_FORMAT: 'pretty',
    });
    const listening = await server.waitForLog((line) =>
      /Server listening at /.test(String(line.msg)),
    );
    const url = /http:\/\/[\d.:]+/.exec(String(listening.msg))?.[0];
    assert.match(
      String(listening.msg),
      /^\d{4}-\d\d-\d\dT[\d:.]+Z INFO {2}Server listening at http/,
    );
    await fetch(`${url}/terms/7`);
    const request = await server.waitForLog((line) => / GET \/terms\/7 /.test(String(line.msg)));
    assert.match(String(request.msg), /Z INFO {2}GET \/terms\/7 404 [\d.]+ ms from 127\.0\.0\.1$/);
    server.child.kill('SIGTERM');
    await server.exited;
  });

  // Lines logged in one turn just before the end all arrive, whatever the end.
  for (const end of ['exit', 'throw', 'wait'] as const) {
    test(`a turn's lines all reach stdout, in order, when the process ends by ${end}`, {
      timeout: 30_000,
    }, async () => {
      const lines = 2000; // about 180 KB, more than a pipe holds
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures/log-burst.ts')],
        {
          env: { ...process.env, LINES: String(lines), END: end },
          stdio: ['ignore', 'pipe', 'ignore'],
        },
      );
      let out = '';
      const all = new Promise<void>((resolve) => {
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString('utf8');
          if (out.split('\n').length > lines) resolve();
        });
      });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      if (end === 'wait')
        await all; // no exit to flush it: the end of the turn did
      else await exited;
      child.kill('SIGKILL');
      const seen = out
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { i: number }).i);
      assert.deepEqual(
        seen,
        Array.from({ length: lines }, (_, i) => i),
      );
    });
  }

  const logPipe = (env: Record<string, string>) =>
    spawn(
      process.execPath,
      ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures/log-pipe.ts')],
      {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'ignore', 'ipc'],
      },
    );
  const said = (child: ReturnType<typeof logPipe>, message: string) =>
    new Promise<void>((resolve) => child.on('message', (got) => got === message && resolve()));

  test('a log reader that stops reading never blocks the service: lines wait in memory', {
    timeout: 30_000,
  }, async () => {
    const lines = 5000; // about 1 MB, many times what a pipe holds
    const child = logPipe({ MODE: 'fill', LINES: String(lines) });
    assert.ok(child.stdout);
    child.stdout.pause(); // nothing is read until the child says it logged them all
    await said(child, 'logged');
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    child.stdout.resume();
    await new Promise<void>((resolve) => {
      const check = () => (out.split('\n').length > lines ? resolve() : setTimeout(check, 20));
      check();
    });
    child.kill('SIGKILL');
    const seen = out
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { i: number }).i);
    assert.deepEqual(
      seen,
      Array.from({ length: lines }, (_, i) => i),
    );
  });

  test('a readable line shows the fields a message carries', () => {
    assert.equal(
      readableLine({
        level: 40,
        time: '2026-11-22T17:00:00.000Z',
        msg: 'worker stopped',
        worker: 2,
        code: 1,
      }),
      '2026-11-22T17:00:00.000Z WARN  worker stopped worker=2 code=1\n',
    );
  });
});
