import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig, SETTINGS } from '../src/config.ts';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `a ConfigError, not ${error}`);
    return error.problems;
  }
  assert.fail(`${JSON.stringify(env)} was accepted`);
}

describe('loadConfig', () => {
  test('defaults: port 8000 on 127.0.0.1, SQLite at ./data/glossary.db, contract limits', () => {
    assert.deepEqual(loadConfig({}), {
      port: 8000,
      host: '127.0.0.1',
      database: { kind: 'sqlite', path: path.resolve('data/glossary.db') },
      logLevel: 'info',
      logFormat: 'auto',
      bodyLimit: 16 * 1024 * 1024,
      bodyMemoryLimit: 256 * 1024 * 1024,
      maxConnections: 10_000,
      batchLimit: 10_000,
      corsOrigins: '*',
      allowedHosts: '*',
      sqliteSynchronous: 'full',
      pgPoolSize: 10,
      shutdownTimeoutMs: 10_000,
      workers: 1,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 60_000,
      idleTimeoutMs: 30_000,
      keepAliveTimeoutMs: 72_000,
      maxRequestsPerSocket: 0,
      rateLimit: null,
      authFailureLimit: { max: 10, windowMs: 60_000 },
      readAccess: 'public',
      webhookAllowPrivate: false,
      webhookRetrySchedule: [
        5000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
      ],
      webhookTimeoutMs: 10_000,
      changesKeepAliveMs: 15_000,
    });
  });

  test('BODY_MEMORY_LIMIT below BODY_LIMIT is refused: no largest body could be read', () => {
    assert.deepEqual(problemsOf({ BODY_LIMIT: '4096', BODY_MEMORY_LIMIT: '2048' }), [
      'BODY_MEMORY_LIMIT must be at least BODY_LIMIT, or no body of the largest size could ever be read',
    ]);
  });

  test('AUTH_FAILURE_LIMIT=off turns the limit on failed authentications off', () => {
    assert.equal(loadConfig({ AUTH_FAILURE_LIMIT: 'off' }).authFailureLimit, null);
  });

  test('an empty variable counts as unset', () => {
    const empty = Object.fromEntries(Object.values(SETTINGS).map((setting) => [setting.env, '']));
    assert.deepEqual(loadConfig(empty), loadConfig({}));
  });

  test('reads every setting from its variable', () => {
    const config = loadConfig({
      PORT: '0',
      HOST: '0.0.0.0',
      DATABASE_URL: 'sqlite:./tmp/other.db',
      LOG_LEVEL: 'DEBUG',
      LOG_FORMAT: 'Pretty',
      BODY_LIMIT: '1024',
      BODY_MEMORY_LIMIT: '2048',
      MAX_CONNECTIONS: '7',
      BATCH_LIMIT: '1',
      CORS_ORIGINS: ' https://app.example , http://localhost:3000 ',
      ALLOWED_HOSTS: ' Glossary.Internal, localhost ,[::1]',
      SQLITE_SYNCHRONOUS: 'Normal',
      PG_POOL_SIZE: '3',
      SHUTDOWN_TIMEOUT_MS: '0',
      WORKERS: '2',
      HEADERS_TIMEOUT_MS: '1000',
      REQUEST_TIMEOUT_MS: '2000',
      IDLE_TIMEOUT_MS: '3000',
      KEEP_ALIVE_TIMEOUT_MS: '4000',
      MAX_REQUESTS_PER_SOCKET: '5',
      RATE_LIMIT: '6/hour',
      AUTH_FAILURE_LIMIT: '7/second',
      READ_ACCESS: 'Token',
      WEBHOOK_ALLOW_PRIVATE: 'TRUE',
      WEBHOOK_RETRY_SCHEDULE: '250ms, 1s,2M,1h',
      WEBHOOK_TIMEOUT_MS: '500',
      CHANGES_KEEPALIVE_MS: '100',
    });
    assert.deepEqual(config, {
      port: 0,
      host: '0.0.0.0',
      database: { kind: 'sqlite', path: path.resolve('tmp/other.db') },
      logLevel: 'debug',
      logFormat: 'pretty',
      bodyLimit: 1024,
      bodyMemoryLimit: 2048,
      maxConnections: 7,
      batchLimit: 1,
      corsOrigins: ['https://app.example', 'http://localhost:3000'],
      allowedHosts: ['glossary.internal', 'localhost', '[::1]'],
      sqliteSynchronous: 'normal',
      pgPoolSize: 3,
      shutdownTimeoutMs: 0,
      workers: 2,
      headersTimeoutMs: 1000,
      requestTimeoutMs: 2000,
      idleTimeoutMs: 3000,
      keepAliveTimeoutMs: 4000,
      maxRequestsPerSocket: 5,
      rateLimit: { max: 6, windowMs: 3_600_000 },
      authFailureLimit: { max: 7, windowMs: 1000 },
      readAccess: 'token',
      webhookAllowPrivate: true,
      webhookRetrySchedule: [250, 1000, 120_000, 3_600_000],
      webhookTimeoutMs: 500,
      changesKeepAliveMs: 100,
    });
  });

  test('DATABASE_URL chooses the backend: sqlite:PATH, sqlite://PATH, postgres:// and postgresql://', () => {
    const database = (url: string) => loadConfig({ DATABASE_URL: url }).database;
    assert.deepEqual(database('sqlite:/var/lib/glossary.db'), {
      kind: 'sqlite',
      path: '/var/lib/glossary.db',
    });
    assert.deepEqual(database('sqlite://data/g.db'), {
      kind: 'sqlite',
      path: path.resolve('data/g.db'),
    });
    assert.deepEqual(database('sqlite::memory:'), { kind: 'sqlite', path: ':memory:' });
    for (const url of ['postgres://u:p@db.internal:5432/glossary', 'postgresql://u@h/db']) {
      assert.deepEqual(database(url), { kind: 'postgres', url });
    }
  });

  const bad: [string, string, RegExp][] = [
    ['PORT', 'abc', /must be a whole number from 0 to 65535/],
    ['PORT', '65536', /from 0 to 65535/],
    ['PORT', '-1', /from 0 to 65535/],
    ['PORT', '80.5', /whole number/],
    ['PORT', ' 80', /whole number/],
    ['DATABASE_URL', 'mysql://localhost/db', /must be sqlite:PATH, postgres:\/\/\.\.\./],
    ['DATABASE_URL', 'sqlite:', /must be sqlite:PATH/],
    ['DATABASE_URL', './data/glossary.db', /must be sqlite:PATH/],
    ['LOG_LEVEL', 'loud', /must be one of fatal, error, warn, info, debug, trace, silent/],
    ['LOG_FORMAT', 'xml', /must be one of auto, json, pretty/],
    ['BODY_LIMIT', '100', /from 1024 to/],
    ['BODY_LIMIT', '16MiB', /whole number/],
    ['BATCH_LIMIT', '0', /from 1 to 1000000/],
    ['BODY_MEMORY_LIMIT', '1000', /from 1024 to/],
    ['MAX_CONNECTIONS', '0', /from 1 to 1000000/],
    ['CORS_ORIGINS', 'app.example', /'app.example' is not an origin like https:\/\/example.org/],
    ['CORS_ORIGINS', 'https://app.example/path', /is not an origin/],
    ['CORS_ORIGINS', ' , ', /must be \* or a comma-separated origin list/],
    ['ALLOWED_HOSTS', 'https://glossary.internal', /is not a host name like glossary.internal/],
    ['ALLOWED_HOSTS', 'glossary.internal:8000', /is not a host name/],
    ['SQLITE_SYNCHRONOUS', 'off', /must be one of full, extra, normal/],
    ['PG_POOL_SIZE', '0', /from 1 to 1000/],
    ['SHUTDOWN_TIMEOUT_MS', 'soon', /whole number/],
    ['AUTH_FAILURE_LIMIT', '10', /must be off or N\/second, N\/minute or N\/hour/],
    ['AUTH_FAILURE_LIMIT', '0/minute', /must be off or/],
    ['WEBHOOK_ALLOW_PRIVATE', 'yes', /must be true or false/],
    ['WEBHOOK_RETRY_SCHEDULE', '5s,,5m', /'' is not a wait like 5s/],
    ['WEBHOOK_RETRY_SCHEDULE', '5 seconds', /'5 seconds' is not a wait like 5s/],
    ['WEBHOOK_RETRY_SCHEDULE', '25h', /from 1ms to 24h/],
    ['WEBHOOK_RETRY_SCHEDULE', '0s', /from 1ms to 24h/],
    ['WEBHOOK_TIMEOUT_MS', '50', /from 100 to 600000/],
    ['CHANGES_KEEPALIVE_MS', '0', /from 100 to 600000/],
  ];
  for (const [name, value, reason] of bad) {
    test(`${name}=${JSON.stringify(value)} is refused with a message naming the variable`, () => {
      const problems = problemsOf({ [name]: value });
      assert.equal(problems.length, 1);
      assert.ok(
        problems[0]?.startsWith(`${name}=${JSON.stringify(value)} `),
        `"${problems[0]}" names ${name} and the value`,
      );
      assert.match(problems[0] ?? '', reason);
    });
  }

  test('reports every bad value at once, in one message', () => {
    try {
      loadConfig({ PORT: 'abc', LOG_LEVEL: 'loud', BATCH_LIMIT: '0', HOST: 'fine' });
      assert.fail('accepted');
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.problems.length, 3);
      assert.equal(
        error.message,
        'invalid configuration: PORT="abc" must be a whole number from 0 to 65535; ' +
          'LOG_LEVEL="loud" must be one of fatal, error, warn, info, debug, trace, silent; ' +
          'BATCH_LIMIT="0" must be a whole number from 1 to 1000000',
      );
    }
  });
});

describe('configuration errors keep secrets', () => {
  test('a misspelt scheme does not print the password', () => {
    assert.throws(
      () =>
        loadConfig({ DATABASE_URL: 'postgress://glossary:s3cret-pw@db.internal:5432/glossary' }),
      (error: Error) => {
        assert.doesNotMatch(error.message, /s3cret-pw/);
        assert.match(
          error.message,
          /DATABASE_URL="postgress:\/\/glossary:\*\*\*@db\.internal:5432\/glossary" must be/,
        );
        return true;
      },
    );
  });
});

describe('docs/configuration.md', () => {
  const page = fs.readFileSync(new URL('../docs/configuration.md', import.meta.url), 'utf8');
  // Each table row of the page as its trimmed cells: the formatter may pad them.
  const rows = page
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
  const variables = rows.map((cells) => /^`([A-Z_]+)`$/.exec(cells[0] ?? '')?.[1]);

  test('lists every setting with its variable and its default', () => {
    for (const setting of Object.values(SETTINGS)) {
      const row = rows[variables.indexOf(setting.env)];
      assert.ok(row, `docs/configuration.md has a row for ${setting.env}`);
      assert.equal(row[1], `\`${setting.default}\``, `the default of ${setting.env}`);
      assert.ok((row[2] ?? '').length > 0, `the meaning of ${setting.env}`);
    }
  });

  test('documents no variable that the code does not read', () => {
    const known = new Set(Object.values(SETTINGS).map((setting) => setting.env));
    const documented = variables.filter((name): name is string => name !== undefined);
    assert.equal(documented.length, known.size);
    assert.deepEqual(
      documented.filter((name) => !known.has(name)),
      [],
    );
  });
});
