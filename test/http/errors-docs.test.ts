import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { ERRORS, type ErrorCode, errors, type HttpError } from '../../src/http/errors.ts';

/** The rows of docs/api.md's "Error list": code, status and sentence, as written there. */
function documentedErrors(): { code: string; status: number; message: string }[] {
  const page = fs.readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const start = page.indexOf('\n### Error list\n');
  assert.ok(start >= 0, 'docs/api.md has a section "### Error list"');
  const end = page.indexOf('\n#', start + 1);
  return page
    .slice(start, end < 0 ? undefined : end)
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    )
    .flatMap(([code, status, message]) => {
      const name = /^`([A-Z_]+)`$/.exec(code ?? '')?.[1];
      const sentence = /^`(.*)`$/.exec(message ?? '')?.[1];
      return name === undefined || sentence === undefined
        ? []
        : [{ code: name, status: Number(status), message: sentence }];
    });
}

/** Each factory of `errors`, called with values of the kind it is given in the service. */
const made: Record<keyof typeof errors, HttpError[]> = {
  termNotFound: [errors.termNotFound()],
  routeNotFound: [errors.routeNotFound()],
  methodNotAllowed: [errors.methodNotAllowed('GET, HEAD')],
  urlTooLong: [errors.urlTooLong()],
  emptyBatch: [errors.emptyBatch()],
  contentLengthMismatch: [errors.contentLengthMismatch()],
  badUrl: [errors.badUrl()],
  notHttp: [errors.notHttp()],
  requestTimeout: [errors.requestTimeout()],
  headersTooLarge: [errors.headersTooLarge()],
  bodyTooLarge: [errors.bodyTooLarge(16_777_216)],
  batchTooLarge: [errors.batchTooLarge(10_000)],
  tooManyValues: [errors.tooManyValues(1_000_000)],
  unsupportedEncoding: [errors.unsupportedEncoding('gzip')],
  unsupportedMediaType: [
    errors.unsupportedMediaType('text/plain'),
    errors.unsupportedMediaType(undefined),
  ],
  storageUnavailable: [errors.storageUnavailable()],
  unknownHost: [errors.unknownHost('attacker.example')],
  bodiesOverBudget: [errors.bodiesOverBudget()],
  tooManyRequests: [errors.tooManyRequests(100, 60_000, 1_500)],
  tooManyFailedAuthentications: [
    errors.tooManyFailedAuthentications({ max: 10, windowMs: 60_000 }, 30_000),
  ],
  internal: [errors.internal()],
  preconditionFailed: [errors.preconditionFailed()],
  authenticationRequired: [errors.authenticationRequired()],
  invalidToken: [errors.invalidToken()],
  readOnlyToken: [errors.readOnlyToken()],
  twoAuthorizations: [errors.twoAuthorizations()],
  notAMergePatch: [errors.notAMergePatch('text/plain'), errors.notAMergePatch(undefined)],
};

/** A sentence of the table as a pattern: each `{name}` stands for any value. */
function sentencePattern(message: string): RegExp {
  const parts = message.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^$()[\]{}|\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.+')}$`);
}

describe('the errors table and docs/api.md', () => {
  const documented = documentedErrors();

  test('docs/api.md lists every error of the table with its status and sentence', () => {
    for (const [code, { status, message }] of Object.entries(ERRORS)) {
      const row = documented.find((entry) => entry.code === code);
      assert.ok(row, `docs/api.md's error list has a row for ${code}`);
      assert.equal(row.status, status, `the status of ${code}`);
      assert.equal(row.message, message, `the sentence of ${code}`);
    }
  });

  test('docs/api.md lists no error the table lacks, and none twice', () => {
    const codes = documented.map((entry) => entry.code);
    assert.deepEqual(
      codes.filter((code) => !(code in ERRORS)),
      [],
    );
    assert.equal(new Set(codes).size, codes.length);
  });
});

describe('the errors table and the errors the service makes', () => {
  test('every error made answers with its code, the status and the sentence of the table', () => {
    for (const [name, answers] of Object.entries(made)) {
      for (const error of answers) {
        assert.ok(error.code in ERRORS, `${name} answers with a code of the table (${error.code})`);
        const { status, message } = ERRORS[error.code as ErrorCode];
        assert.equal(error.statusCode, status, `the status of ${name}`);
        assert.match(error.detail, sentencePattern(message), `the sentence of ${name}`);
      }
    }
  });

  test('every code of the table is answered by some error', () => {
    const answered = new Set(Object.values(made).flatMap((answers) => answers.map((e) => e.code)));
    assert.deepEqual(
      Object.keys(ERRORS).filter((code) => !answered.has(code)),
      [],
    );
  });

  test('a value the client sent fills its place in the sentence', () => {
    assert.equal(
      errors.unsupportedMediaType('text/plain').detail,
      "Unsupported media type 'text/plain': send the body as application/json.",
    );
    assert.equal(
      errors.tooManyRequests(100, 60_000, 1_500).detail,
      'Too many requests: at most 100 per 60 seconds from one client.',
    );
  });
});
