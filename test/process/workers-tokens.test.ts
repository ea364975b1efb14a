import assert from 'node:assert/strict';
import http from 'node:http';
import { after, describe, test } from 'node:test';
import { sampleTerm } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';
import { runCli } from '../helpers/run-cli.ts';
import { killLeftovers, startServer } from '../helpers/server-process.ts';

/** "A revoked token stops working at once in every worker and instance", with WORKERS=2. */

/** POST /terms on a connection of its own, so the workers take turns; the status answered. */
function post(url: string, id: number, token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${url}/terms`,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(sampleTerm(id)));
  });
}

for (const backend of backends()) {
  describe(`tokens with WORKERS=2 (${backend.name})`, () => {
    after(killLeftovers);

    test('a token revoked by the CLI is refused at once by both workers', async () => {
      const location = await backend.location();
      const env = { ...process.env, DATABASE_URL: location.url };
      const server = await startServer({ DATABASE_URL: location.url, WORKERS: '2' });
      try {
        await server.waitForLog((line) => line.msg === 'ready' && line.workers === 2);
        await runCli(['token', 'create', 'keeper'], { env });
        const token = (await runCli(['token', 'create', 'ci'], { env })).stdout.trim();
        const servedBy = (status: number) =>
          new Set(
            server.logs
              .filter((line) => line.msg === 'request completed' && line.statusCode === status)
              .map((line) => line.pid),
          );
        for (let id = 0; id < 40 && servedBy(201).size < 2; id += 1) {
          assert.equal(await post(server.url, id, token), 201);
        }
        assert.equal(servedBy(201).size, 2, 'both workers wrote with the token');

        const revoked = await runCli(['token', 'revoke', 'ci'], { env });
        assert.equal(revoked.code, 0, revoked.stderr);
        for (let id = 100; id < 140; id += 1) {
          assert.equal(await post(server.url, id, token), 401, `request ${id}`);
        }
        assert.equal(servedBy(401).size, 2, 'both workers refused the revoked token');
      } finally {
        await server.stop();
        await location.dispose();
      }
    });
  });
}
