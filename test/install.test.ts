import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, test } from 'node:test';
import semver from 'semver';

/**
 * What `npm ci` installs from the lockfile runs on the Node.js that package.json promises, so
 * a newcomer's install prints no EBADENGINE warning and the service starts on every promised
 * version. npm installs an optional package only where its engines allow (the better-sqlite3
 * builds, one per Node.js line), and warns about every other package whose engines do not.
 */

interface Locked {
  dev?: boolean;
  optional?: boolean;
  devOptional?: boolean;
  engines?: { node?: string };
}

const read = (file: string) =>
  JSON.parse(fs.readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'));
const lock: { packages: Record<string, Locked> } = read('package-lock.json');
const promised: string = read('package.json').engines.node;

/** Each package npm installs whatever the Node.js (not optional), with its engines' range. */
const installed = Object.entries(lock.packages)
  .filter(([where, entry]) => where !== '' && !entry.optional && entry.engines?.node)
  .map(([where, entry]) => ({ where, entry, range: entry.engines?.node as string }));

const refusing = (version: string, packages: typeof installed) =>
  packages
    .filter(({ range }) => !semver.satisfies(version, range))
    .map(({ where, range }) => `${where} (node ${range})`);

describe('npm ci', () => {
  test('installs no package whose engines leave out the running Node.js (no EBADENGINE)', () => {
    assert.deepEqual(refusing(process.versions.node, installed), []);
  });

  test("installs for the service only packages that run on the oldest Node.js package.json's engines allows", () => {
    const oldest = semver.minVersion(promised)?.version;
    assert.ok(oldest, `engines.node ${promised} names a version`);
    const service = installed.filter(({ entry }) => !entry.dev && !entry.devOptional);
    assert.deepEqual(refusing(oldest, service), []);
  });
});
