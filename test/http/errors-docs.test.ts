import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import { repeatedNameMessage } from '../../src/glossary/name-repeats.ts';
import { NameConflictError, nameConflictMessage } from '../../src/glossary/other-names.ts';
import {
  ERRORS,
  type ErrorCode,
  errors,
  type HttpError,
  NAME_CONFLICT,
  nameConflictFault,
} from '../../src/http/errors.ts';
import { NAME_REPEATED } from '../../src/http/validation.ts';

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

describe('the faults of the rule on names and docs/api.md', () => {
  const page = fs.readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  /** The `msg` docs/api.md's validation table gives for a fault `type`. */
  const documentedMsg = (type: string) => {
    const row = page
      .split('\n')
      .find((line) => line.startsWith('|') && line.includes(`| \`${type}\``));
    return row && /\| `([^`]+)`[^|]*\|\s*$/.exec(row)?.[1];
  };

  test('the validation table gives each type with a message the service makes', () => {
    assert.equal(
      documentedMsg(NAME_REPEATED),
      repeatedNameMessage('k8s', 'aliases'),
      `docs/api.md's row for ${NAME_REPEATED}`,
    );
    const conflict = new NameConflictError('avoid', 0, 'web hook', 42, 'avoid');
    assert.equal(documentedMsg(NAME_CONFLICT), conflict.message);
    assert.equal(nameConflictFault(conflict).msg, conflict.message);
    assert.equal(conflict.message, "'web hook' is a name to avoid for term 42.");
  });

  test('the other-names section quotes each sentence as the service makes it', () => {
    for (const sentence of [
      repeatedNameMessage('kubernetes', 'term'),
      repeatedNameMessage('k8s', 'aliases'),
      repeatedNameMessage('kubernates', 'avoid'),
      nameConflictMessage('web hook', 42, 'avoid'),
      nameConflictMessage('Webhook', 42, 'term'),
      nameConflictMessage('HTTP callback', 42, 'aliases'),
    ]) {
      assert.ok(page.includes(`\`${sentence}\``), `docs/api.md quotes "${sentence}"`);
    }
  });
});
