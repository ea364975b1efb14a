import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/backends.ts';
import { killLeftovers, type Launch, startServer } from '../helpers/server-process.ts';

/**
 * What production runs: `npm start` on the built checkout (`npm test` builds first). It must
 * start from a read-only copy, build nothing, and stop cleanly when the process a supervisor
 * started (npm itself) gets SIGTERM or SIGINT, whatever WORKERS says.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TIMEOUT = { timeout: 90_000 };
/** `npm` as `npm test` runs it, else the one on PATH. */
const NPM = process.env.npm_execpath
  ? { file: process.execPath, args: [process.env.npm_execpath] }
  : { file: 'npm', args: [] };
/** Root can write anywhere: run as nobody, so read-only means read-only. */
const NOBODY = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

/** A checkout as an install leaves it: the package, its built `dist/`, its node_modules. */
function builtCopy(): string {
  const copy = tempDir('glossary-built-');
  fs.chmodSync(copy, 0o755);
  for (const entry of ['package.json', 'bin', 'dist']) {
    fs.cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true });
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  return copy;
}

/** A folder the service (maybe running as nobody) may write its database and npm its cache. */
function writableDir(): string {
  const dir = tempDir('glossary-data-');
  if (NOBODY.uid !== undefined) fs.chownSync(dir, NOBODY.uid, NOBODY.gid);
  return dir;
}

function listing(dir: string): string {
  return execFileSync(
    'find',
    [dir, '-not', '-path', '*/node_modules/*', '-printf', '%p %s %T@ %m\n'],
    {
      encoding: 'utf8',
    },
  );
}

function npmStart(cwd: string): Launch {
  return { file: NPM.file, args: [...NPM.args, 'start', '--silent'], cwd, ...NOBODY };
}

async function refused(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/healthz`);
    return false;
  } catch {
    return true;
  }
}

describe('npm start, as production runs it', () => {
  after(killLeftovers);

  test(
    'starts the built service from a read-only checkout and writes nothing there',
    TIMEOUT,
    async () => {
      const copy = builtCopy();
      execFileSync('chmod', ['-R', 'a-w', copy]);
      const data = writableDir();
      const before = listing(copy);
      const server = await startServer(
        { DATABASE_URL: `sqlite:${path.join(data, 'glossary.db')}`, HOME: data },
        npmStart(copy),
      );
      const page = await fetch(`${server.url}/`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<title>Glossary/);
      const created = await fetch(`${server.url}/terms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          id: 1,
          term: 'Build',
          definition: 'Done once.',
          category: 'devops',
        }),
      });
      assert.equal(created.status, 201);
      assert.deepEqual(await server.stop('SIGTERM'), { code: 0, signal: null });
      assert.equal(listing(copy), before);
      assert.ok(
        !server.logs.some((line) => String(line.msg).includes('older than its sources')),
        'a checkout without sources is never called stale',
      );
      execFileSync('chmod', ['-R', 'u+w', copy]);
    },
  );

  for (const workers of ['1', '2']) {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      test(
        `${signal} to npm stops the service gracefully with WORKERS=${workers}`,
        TIMEOUT,
        async () => {
          const data = writableDir();
          const server = await startServer(
            {
              DATABASE_URL: `sqlite:${path.join(data, 'glossary.db')}`,
              HOME: data,
              WORKERS: workers,
            },
            npmStart(ROOT),
          );
          assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
          const exit = await server.stop(signal);
          assert.deepEqual(exit, { code: 0, signal: null });
          assert.ok(
            server.logs.some((line) => line.msg === 'stopped'),
            'stopped gracefully',
          );
          assert.ok(await refused(server.url), 'nothing answers any more');
        },
      );
    }
  }

  test('the glossary command runs the built CLI', TIMEOUT, () => {
    const version = execFileSync(
      process.execPath,
      [path.join(ROOT, 'bin/glossary.js'), '--version'],
      {
        encoding: 'utf8',
      },
    );
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      version: string;
    };
    assert.equal(version, `${pkg.version}\n`);
  });
});
