import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { readableLine } from '../../src/logging.ts';
import { tempDir } from '../helpers/backends.ts';
import { killLeftovers, runServer, startServer } from '../helpers/server-process.ts';

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

  /** A child logging LINES lines as END says (fixtures/log-lines.ts), its stdout gathered. */
  function logLines(
    lines: number,
    end: 'exit' | 'throw' | 'wait' | 'tell-exit' | 'spread',
    format = 'json',
  ) {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(import.meta.dirname, '../fixtures/log-lines.ts')],
      {
        env: { ...process.env, LINES: String(lines), END: end, FORMAT: format },
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      },
    );
    const stdout = child.stdout;
    assert.ok(stdout);
    let out = '';
    stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8');
    });
    return {
      child,
      stdout,
      /** What the child wrote to stderr. */
      stderr: () => err,
      /** Resolves once every line has arrived. */
      all: () =>
        new Promise<void>((resolve) => {
          const check = () => (out.split('\n').length > lines ? resolve() : setTimeout(check, 20));
          check();
        }),
      /** The numbers of the lines that arrived, in their order. */
      seen: () =>
        out
          .split('\n')
          .filter(Boolean)
          .map((line) => (JSON.parse(line) as { i: number }).i),
    };
  }
  const inOrder = (lines: number) => Array.from({ length: lines }, (_, i) => i);

  // Lines logged in one turn just before the end all arrive, whatever the end.
  for (const end of ['exit', 'throw', 'wait'] as const) {
    test(`a turn's lines all reach stdout, in order, when the process ends by ${end}`, {
      timeout: 30_000,
    }, async () => {
      const lines = 2000; // about 180 KB, more than a pipe holds
      const logging = logLines(lines, end);
      const exited = new Promise((resolve) => logging.child.once('exit', resolve));
      if (end === 'wait')
        await logging.all(); // no exit: the destination writes them as it can
      else await exited;
      logging.child.kill('SIGKILL');
      assert.deepEqual(logging.seen(), inOrder(lines));
    });
  }

  /** The child's next IPC message, or how it ended, or that 15 s passed without either. */
  const outcome = (child: ChildProcess) =>
    Promise.race([
      new Promise((resolve) => child.once('message', resolve)),
      new Promise((resolve) => child.once('exit', (code) => resolve(`exit ${code}`))),
      new Promise((resolve) => setTimeout(resolve, 15_000, 'still running after 15 s').unref()),
    ]);

  test('a log reader that stops reading never blocks the service: lines wait in memory', {
    timeout: 30_000,
  }, async () => {
    const lines = 5000; // about 1 MB, many times what a pipe holds
    const logging = logLines(lines, 'spread');
    logging.stdout.pause(); // nothing is read until the child says it logged them all
    const said = await outcome(logging.child);
    logging.stdout.resume();
    if (said !== 'logged') logging.child.kill('SIGKILL');
    assert.equal(said, 'logged');
    await logging.all();
    logging.child.kill('SIGKILL');
    assert.deepEqual(logging.seen(), inOrder(lines));
  });

  test('at exit a stalled log reader that reads again gets every line, in order', {
    timeout: 30_000,
  }, async () => {
    const lines = 5000; // about 170 KB: the exit finds the pipe full
    const logging = logLines(lines, 'tell-exit');
    logging.stdout.pause();
    assert.equal(await outcome(logging.child), 'logged');
    const exited = new Promise((resolve) => logging.child.once('exit', resolve));
    logging.stdout.resume();
    assert.equal(await exited, 0);
    await logging.all();
    assert.deepEqual(logging.seen(), inOrder(lines));
  });

  test('a log reader that never reads again holds the exit only a while: the process ends', {
    timeout: 30_000,
  }, async () => {
    const lines = 5000;
    const logging = logLines(lines, 'tell-exit');
    logging.stdout.pause();
    assert.equal(await outcome(logging.child), 'logged');
    const ended = await outcome(logging.child);
    logging.child.kill('SIGKILL');
    assert.equal(ended, 'exit 0');
    logging.stdout.resume();
    await new Promise((resolve) => logging.stdout.once('end', resolve));
    // What the pipe held arrived; the rest was dropped whole, never out of order.
    const seen = logging.seen();
    assert.ok(seen.length > 0 && seen.length < lines, `${seen.length} lines`);
    assert.deepEqual(seen, inOrder(seen.length));
  });

  // A reader that has gone (the pipe closed) stops the logging, never the process.
  for (const format of ['json', 'pretty'] as const) {
    test(`a process whose log reader has gone keeps running, then exits quietly (EPIPE, ${format})`, {
      timeout: 30_000,
    }, async () => {
      // Gone before the child, still starting, logs its first line.
      const running = logLines(5000, 'spread', format);
      running.stdout.destroy();
      assert.equal(await outcome(running.child), 'logged');
      running.child.kill('SIGKILL');
      assert.equal(running.stderr(), '');

      const exiting = logLines(2000, 'exit', format);
      exiting.stdout.destroy();
      assert.equal(await outcome(exiting.child), 'exit 0');
      exiting.child.kill('SIGKILL');
      assert.equal(exiting.stderr(), '');
    });
  }

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
