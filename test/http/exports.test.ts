import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import yauzl from 'yauzl';
import { newToken } from '../../src/glossary/access.ts';
import { CSV_COLUMNS } from '../../src/glossary/exports/csv.ts';
import { EXPORT_FORMATS, exportFormats } from '../../src/glossary/exports/formats.ts';
import { sampleTerm, startApp, type TestApp } from '../helpers/app.ts';
import { backends, tempDir } from '../helpers/backends.ts';
import { listenApp } from '../helpers/listening-app.ts';

/** The zip's entries: path → text. */
function unzip(buffer: Buffer): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error);
      const files = new Map<string, string>();
      zip.on('error', reject);
      zip.on('end', () => resolve(files));
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            files.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

const TERMS = [
  sampleTerm(1, { term: 'Webhook', aliases: ['WH'], avoid: ['web hook'], category: 'backend' }),
  sampleTerm(2, { term: 'Cache', definition: 'A store of answers kept.', category: 'frontend' }),
  sampleTerm(3, { term: 'Pipeline', category: 'devops', see_also: [1] }),
];

for (const backend of backends()) {
  describe(`GET /exports/{format} (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
      for (const term of TERMS) {
        const created = await t.app.inject({ method: 'POST', url: '/terms', payload: term });
        assert.equal(created.statusCode, 201, created.body);
      }
    });
    after(() => t.close());

    test('every format answers 200 with its type and a download name', async () => {
      for (const format of exportFormats()) {
        const response = await t.app.inject({ url: `/exports/${format.name}` });
        assert.equal(response.statusCode, 200, `${format.name}: ${response.body.slice(0, 200)}`);
        const type = format.kind === 'file' ? format.mediaType : 'application/zip';
        const name = format.kind === 'file' ? format.fileName : `${format.folderName}.zip`;
        assert.equal(response.headers['content-type'], type, format.name);
        assert.equal(response.headers['content-disposition'], `attachment; filename="${name}"`);
        assert.ok(response.rawPayload.length > 0, format.name);
        const head = await t.app.inject({ method: 'HEAD', url: `/exports/${format.name}` });
        assert.equal(head.statusCode, 200);
        assert.equal(head.headers['content-type'], type);
        assert.equal(head.body, '');
        if (format.kind === 'folder') {
          assert.equal(response.headers['content-type'], 'application/zip');
        }
      }
    });

    test('json and csv hold what GET /terms lists', async () => {
      const json = await t.app.inject({ url: '/exports/json' });
      assert.deepEqual(
        JSON.parse(json.body),
        JSON.parse((await t.app.inject({ url: '/terms' })).body),
      );
      const csv = await t.app.inject({ url: '/exports/csv' });
      assert.equal(csv.body.split('\r\n')[0], CSV_COLUMNS.join(','));
      assert.equal(csv.body.trimEnd().split('\r\n').length, 4);
    });

    test("a folder format is a zip with the folder's files at its root", async () => {
      for (const format of exportFormats()) {
        if (format.kind !== 'folder') continue;
        const response = await t.app.inject({ url: `/exports/${format.name}` });
        const files = await unzip(response.rawPayload);
        const expected = [];
        for await (const file of format.render(async function* () {
          yield TERMS.map((term) => ({ ...term })) as never;
        })) {
          expected.push(file);
        }
        assert.deepEqual([...files.keys()].sort(), expected.map((file) => file.path).sort());
        for (const file of expected) assert.equal(files.get(file.path), file.content, file.path);
      }
      const raw = (await t.app.inject({ url: '/exports/vale' })).rawPayload;
      const vale = await unzip(raw);
      assert.ok(vale.has('.vale.ini'), [...vale.keys()].join());
      // The real unzip, as docs/docs-pipeline.md has a reader run it: the files land in DIR.
      const dir = tempDir();
      fs.writeFileSync(path.join(dir, 'glossary-vale.zip'), raw);
      execFileSync('unzip', [
        '-q',
        '-d',
        path.join(dir, 'out'),
        path.join(dir, 'glossary-vale.zip'),
      ]);
      assert.ok(fs.existsSync(path.join(dir, 'out', '.vale.ini')));
      assert.ok(fs.existsSync(path.join(dir, 'out', 'styles', 'Glossary', 'Terms.yml')));
      const accept = [...vale.keys()].find((path) => path.endsWith('/Glossary/accept.txt'));
      assert.match(vale.get(accept ?? '') ?? '', /Webhook/);
    });

    test('category and q filter as on GET /terms', async () => {
      const byCategory = await t.app.inject({ url: '/exports/json?category=frontend' });
      assert.deepEqual(
        JSON.parse(byCategory.body).map((term: { id: number }) => term.id),
        [2],
      );
      const byWords = await t.app.inject({ url: '/exports/csv?q=pipeline' });
      assert.equal(byWords.body.trimEnd().split('\r\n').length, 2);
      assert.match(byWords.body, /^3,Pipeline,/m);
      const byAlias = await t.app.inject({ url: '/exports/json?q=WH' });
      assert.deepEqual(
        JSON.parse(byAlias.body).map((term: { id: number }) => term.id),
        [1],
      );
      const zip = await unzip(
        (await t.app.inject({ url: '/exports/hugo?category=devops' })).rawPayload,
      );
      const pages = [...zip.keys()].filter((path) => path.startsWith('content/'));
      assert.ok(
        pages.some((path) => zip.get(path)?.includes('title: "Pipeline"')),
        pages.join(),
      );
      assert.ok(!pages.some((path) => zip.get(path)?.includes('title: "Cache"')));
      for (const url of ['/exports/json?category=cooking', `/exports/csv?q=${'x'.repeat(1000)}`]) {
        const bad = await t.app.inject({ url });
        const list = await t.app.inject({ url: url.replace(/\/exports\/\w+/, '/terms') });
        assert.equal(bad.statusCode, 422, url);
        assert.deepEqual(JSON.parse(bad.body), JSON.parse(list.body));
      }
    });

    test('an unknown format is a 422 at ["path","format"] naming the formats', async () => {
      const response = await t.app.inject({ url: '/exports/docx' });
      assert.equal(response.statusCode, 422);
      const [fault] = JSON.parse(response.body).detail;
      assert.deepEqual(fault.loc, ['path', 'format']);
      assert.equal(fault.input, 'docx');
      for (const name of EXPORT_FORMATS) assert.ok(fault.msg.includes(`'${name}'`), fault.msg);
    });

    test('the OpenAPI document lists the formats with their descriptions', async () => {
      const document = JSON.parse((await t.app.inject({ url: '/openapi.json' })).body);
      const parameter = document.paths['/exports/{format}'].get.parameters.find(
        (p: { name: string }) => p.name === 'format',
      );
      assert.deepEqual(parameter.schema.enum, [...EXPORT_FORMATS]);
      for (const format of exportFormats()) {
        assert.ok(parameter.description.includes(format.description), format.name);
      }
    });
  });

  describe(`GET /exports/{format} on an empty glossary, and with READ_ACCESS=token (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend, { readAccess: 'token' });
    });
    after(() => t.close());

    test('every format answers an empty glossary; none without a token', async () => {
      // Reads are open while no token exists at all.
      const { token, stored } = newToken('reader', 'read-only');
      assert.equal(await t.store.addToken(stored), 'added');
      for (const name of EXPORT_FORMATS) {
        const refused = await t.app.inject({ url: `/exports/${name}` });
        assert.equal(refused.statusCode, 401, name);
      }
      const headers = { authorization: `Bearer ${token}` };
      for (const format of exportFormats()) {
        const response = await t.app.inject({ url: `/exports/${format.name}`, headers });
        assert.equal(response.statusCode, 200, `${format.name}: ${response.body.slice(0, 200)}`);
        if (format.kind === 'folder') await unzip(response.rawPayload);
      }
      assert.equal((await t.app.inject({ url: '/exports/json', headers })).body, '[]\n');
    });
  });

  describe(`clients that leave mid-export (${backend.name})`, () => {
    test('abandoned downloads end their reads; the service keeps answering', async () => {
      const glossary = await listenApp(backend);
      try {
        const definition = 'y'.repeat(2000);
        const batch = Array.from({ length: 4000 }, (_, i) =>
          sampleTerm(i + 1, { definition: `${definition} ${i}` }),
        );
        const created = await fetch(`${glossary.url}/terms/bulk`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(batch),
        });
        assert.equal(created.status, 207);
        // More abandoned exports than PostgreSQL's pool holds connections: a leak would starve it.
        for (let i = 0; i < 24; i += 1) {
          const controller = new AbortController();
          const format = ['csv', 'json', 'hugo', 'tbx'][i % 4];
          const response = await fetch(`${glossary.url}/exports/${format}`, {
            signal: controller.signal,
          });
          assert.equal(response.status, 200);
          const reader = response.body?.getReader();
          await reader?.read();
          controller.abort();
        }
        const whole = await fetch(`${glossary.url}/exports/json`);
        assert.equal(whole.status, 200);
        assert.equal(((await whole.json()) as unknown[]).length, 4000);
        assert.equal((await fetch(`${glossary.url}/readyz`)).status, 200);
      } finally {
        glossary.app.server.closeAllConnections();
        await glossary.close();
      }
    });
  });
}
