import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ListeningApp, listenApp } from '../helpers/listening-app.ts';
import { runCli } from '../helpers/run-cli.ts';

/** What the CLI says to the arguments a careless person gives it. */
describe('glossary: careless arguments', () => {
  let app: ListeningApp;
  before(async () => {
    app = await listenApp();
  });
  after(() => app.close());

  const unsendable =
    'glossary: the token given with --token or GLOSSARY_TOKEN holds a line break or another character an HTTP header cannot carry; check how it was copied\n';

  test('a token over two lines, or beyond Latin-1, is a usage error that never shows the token (not "cannot reach")', async () => {
    const env = { ...process.env, GLOSSARY_TOKEN: 'glos_secret\nrest' };
    for (const args of [
      ['export', '--url', app.url, '--token', 'glos_secret\nrest'],
      ['export', '--url', app.url, '--token', 'glos_令牌'],
      ['export', '--url', app.url],
      ['import', '-', '--url', app.url],
      ['lint', '--url', app.url, '.'],
    ]) {
      const run = await runCli(args, { env, stdin: '[]' });
      assert.equal(run.stderr, unsendable, args.join(' '));
      assert.equal(run.code, 2, args.join(' '));
      assert.equal(run.stdout, '');
    }
  });

  test('white space around a token (a copy with its line end) is no error: fetch drops it', async () => {
    const run = await runCli(['export', '--url', app.url, '--token', 'glos_abc\r\n']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '[]\n');
  });
});
