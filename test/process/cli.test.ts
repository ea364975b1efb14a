import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { tempDir } from '../helpers/backends.ts';
import { type ListeningApp, listenApp } from '../helpers/listening-app.ts';
import { GLOSSARY_BIN, runCli } from '../helpers/run-cli.ts';

const SAMPLE_FILE = fileURL('../fixtures/sample-glossary.json');
const SAMPLE = JSON.parse(fs.readFileSync(SAMPLE_FILE, 'utf8')) as unknown[];

/** Terms that stress every format: quotes, commas, line breaks, Markdown, odd ids. */
const AWKWARD = [
  {
    id: 0,
    term: 'Quote "this", please',
    definition: 'Line one,\nline two with "quotes"\r\nand a CRLF.',
    category: 'docs-as-code',
    see_also: [-7, 9_007_199_254_740_991],
  },
  {
    id: -7,
    term: '*Über* [link](x) <b>',
    definition: '# not a heading\n- not a list\n1. not a list either',
    category: 'frontend',
    see_also: [],
  },
  {
    id: 9_007_199_254_740_991,
    term: '  padded  ',
    definition: 'Ünïcödé 日本語 🚀; semi;colons',
    category: 'backend',
    see_also: [0, 0, 123456],
  },
];

/** Cells a spreadsheet would run as formulas (OWASP, "CSV Injection"), and ones that look close. */
const FORMULAS = [
  {
    id: 50,
    term: '=HYPERLINK("https://evil.example","Click")',
    definition: "+cmd|' /C calc'!A0",
    category: 'backend',
  },
  { id: 51, term: "'quoted already", definition: '@SUM(1+1)\t-2+3', category: 'devops' },
  { id: 52, term: "'=both'", definition: 'plain = not a formula', category: 'backend' },
].map((term) => ({ ...term, see_also: [] }));

function fileURL(relative: string): string {
  return new URL(relative, import.meta.url).pathname;
}

function writeTemp(name: string, content: string): string {
  const file = path.join(tempDir('glossary-cli-'), name);
  fs.writeFileSync(file, content);
  return file;
}

async function storedTerms(app: ListeningApp): Promise<unknown[]> {
  return (await (await fetch(`${app.url}/terms`)).json()) as unknown[];
}

async function seed(app: ListeningApp, terms: unknown[]): Promise<void> {
  const response = await fetch(`${app.url}/terms/bulk`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(terms),
  });
  assert.equal(response.status, 207);
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('glossary import', () => {
  let app: ListeningApp;
  beforeEach(async () => {
    app = await listenApp();
  });
  afterEach(() => app.close());

  test('a JSON array is imported in file order and summarised; exit status 0', async () => {
    const run = await runCli(['import', SAMPLE_FILE, '--url', app.url]);
    assert.equal(run.code, 0, run.stderr);
    const lines = SAMPLE.map((term) => `created ${(term as { id: number }).id}\n`).join('');
    assert.equal(run.stdout, `${lines}${SAMPLE_FILE}: 16 created, 0 rejected (16 terms)\n`);
    assert.equal(run.stderr, '');
    const stored = await storedTerms(app);
    assert.deepEqual(stored, SAMPLE);
  });

  test('rejected JSON items are reported by their index in the file and id, across batches; exit status 1', async () => {
    const file = writeTemp(
      'terms.json',
      JSON.stringify([
        { id: 1, term: 'One', definition: 'First.', category: 'backend' },
        { id: 2, term: 'Two', definition: 'Second.', category: 'backend' },
        { id: 1, term: 'One again', definition: 'Taken id.', category: 'backend' },
        { id: 4, term: 'Four', definition: 'Bad category.', category: 'design' },
        'not a term',
        { id: 6, term: 'Six', definition: 'Last.', category: 'devops' },
      ]),
    );
    // Batches of two: item 2 is the first of the second batch, so a batch index would be 0.
    const run = await runCli(['import', file, '--url', app.url, '--batch-size', '2']);
    assert.equal(run.code, 1);
    assert.equal(
      run.stdout,
      [
        'created 1',
        'created 2',
        'rejected item 2 (id 1): Duplicate ID 1 in the file (item 0).',
        "rejected item 3 (id 4): category: value is not a valid enumeration member; permitted: 'frontend', 'backend', 'devops', 'docs-as-code'",
        'rejected item 4: value is not a valid dict',
        'created 6',
        `${file}: 3 created, 3 rejected (6 terms)`,
        '',
      ].join('\n'),
    );
    const ids = ((await storedTerms(app)) as { id: number }[]).map((term) => term.id);
    assert.deepEqual(ids, [1, 2, 6]);
  });

  test('CSV with RFC 4180 quoting and ;-separated see_also is imported exactly', async () => {
    const csv = [
      'id,term,definition,category,see_also',
      '1,"Quote ""this"", please","Line one,\r\nline two",backend,2; 3;',
      '2,Plain,No quotes needed,devops,',
      '-3,  padded  ,"Ünïcödé, 🚀",frontend,1',
      '',
    ].join('\r\n');
    const file = writeTemp('terms.csv', `\uFEFF${csv}`);
    const run = await runCli(['import', file, '--url', app.url]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.deepEqual(await storedTerms(app), [
      {
        id: 1,
        term: 'Quote "this", please',
        definition: 'Line one,\r\nline two',
        category: 'backend',
        see_also: [2, 3],
      },
      { id: 2, term: 'Plain', definition: 'No quotes needed', category: 'devops', see_also: [] },
      {
        id: -3,
        term: '  padded  ',
        definition: 'Ünïcödé, 🚀',
        category: 'frontend',
        see_also: [1],
      },
    ]);
  });

  test('CSV values the service rejects come back by the line their record starts on, with its reasons', async () => {
    const file = writeTemp(
      'terms.csv',
      [
        'term,id,category,definition,see_also',
        'Good,1,backend,"Fine,',
        'over two lines.",',
        '',
        'Bad id,x1,backend,Fine.,',
        'Bad see_also,3,backend,Fine.,1;two',
        'No category,4,,Fine.,',
      ].join('\n'),
    );
    const run = await runCli(['import', file, '--url', app.url]);
    assert.equal(run.code, 1);
    assert.equal(
      run.stdout,
      [
        'created 1',
        'rejected line 5 (id "x1"): id: value is not a valid integer',
        'rejected line 6 (id 3): see_also.1: value is not a valid integer',
        "rejected line 7 (id 4): category: value is not a valid enumeration member; permitted: 'frontend', 'backend', 'devops', 'docs-as-code'",
        `${file}: 1 created, 3 rejected (4 terms)`,
        '',
      ].join('\n'),
    );
  });

  test('a batch larger than the service allows is split until it fits', async () => {
    await app.close();
    app = await listenApp(undefined, { batchLimit: 3 });
    const run = await runCli(['import', SAMPLE_FILE, '--url', app.url, '--batch-size', '10']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(await storedTerms(app), SAMPLE);
  });

  test('- reads the terms from standard input', async () => {
    const run = await runCli(['import', '-', '--url', app.url], {
      stdin: JSON.stringify(AWKWARD),
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      run.stdout,
      'created 0\ncreated -7\ncreated 9007199254740991\n-: 3 created, 0 rejected (3 terms)\n',
    );
  });

  for (const [name, content, message] of [
    ['bad.json', '[{"id": 1,', /^glossary: .*bad\.json is not valid JSON at line 1, column 11: /],
    ['object.json', '{"id": 1}', /^glossary: .*object\.json must hold a JSON array of terms\n$/],
    [
      'header.csv',
      'id,name,definition,category\n1,x,y,backend\n',
      /^glossary: .*header\.csv: unknown column 'name'; the header must be id,term,definition,category,see_also,aliases,avoid\n$/,
    ],
    [
      'quote.csv',
      'id,term,definition,category,see_also\n1,"open,x,backend,\n',
      /^glossary: .*quote\.csv is not valid CSV: Quote Not Closed/,
    ],
    [
      'columns.csv',
      'id,term,definition,category,see_also\n1,x,y,backend\n',
      /^glossary: .*columns\.csv is not valid CSV: Invalid Record Length/,
    ],
  ] as const) {
    test(`a bad file (${name}) is one clear line, exit status 1, nothing sent`, async () => {
      const run = await runCli(['import', writeTemp(name, content), '--url', app.url]);
      assert.equal(run.code, 1);
      assert.match(run.stderr, message);
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
      assert.deepEqual(await storedTerms(app), []);
    });
  }

  test('a missing file is one clear line, exit status 1', async () => {
    const run = await runCli(['import', '/nonexistent/terms.json', '--url', app.url]);
    assert.equal(run.code, 1);
    assert.equal(run.stderr, 'glossary: cannot read /nonexistent/terms.json: no such file\n');
  });
});

describe('glossary export', () => {
  let app: ListeningApp;
  beforeEach(async () => {
    app = await listenApp();
  });
  afterEach(() => app.close());

  test('json (the default) is the whole glossary in creation order, a term a line', async () => {
    await seed(app, AWKWARD);
    const run = await runCli(['export', '--url', app.url]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), AWKWARD);
    assert.equal(
      run.stdout,
      `[\n${AWKWARD.map((term) => `  ${JSON.stringify(term)}`).join(',\n')}\n]\n`,
    );
  });

  test('csv quotes what RFC 4180 requires and joins see_also with ;', async () => {
    await seed(app, AWKWARD);
    const run = await runCli(['export', '--format', 'csv', '--url', app.url]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      run.stdout,
      [
        'id,term,definition,category,see_also,aliases,avoid',
        '0,"Quote ""this"", please","Line one,\nline two with ""quotes""\r\nand a CRLF.",docs-as-code,-7;9007199254740991,,',
        '-7,*Über* [link](x) <b>,"# not a heading\n- not a list\n1. not a list either",frontend,,,',
        '9007199254740991,  padded  ,Ünïcödé 日本語 🚀; semi;colons,backend,0;0;123456,,',
        '',
      ].join('\r\n'),
    );
  });

  test('csv neutralises formula cells with a leading quote (OWASP CSV injection)', async () => {
    await seed(app, FORMULAS);
    const run = await runCli(['export', '--format', 'csv', '--url', app.url]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      run.stdout,
      [
        'id,term,definition,category,see_also,aliases,avoid',
        `50,"'=HYPERLINK(""https://evil.example"",""Click"")",'+cmd|' /C calc'!A0,backend,,,`,
        "51,''quoted already,'@SUM(1+1)\t-2+3,devops,,,",
        "52,''=both',plain = not a formula,backend,,,",
        '',
      ].join('\r\n'),
    );
  });

  test('md links bare addresses as autolinks and never turns a definition line into markup', async () => {
    await seed(app, [
      {
        id: 1,
        term: 'Spec',
        definition: 'See https://example.com/a_b*c (the spec).\n1. not a list\n> not a quote',
        category: 'backend',
      },
    ]);
    const run = await runCli(['export', '--format', 'md', '--url', app.url]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      /See <https:\/\/example\.com\/a_b\*c> \\\(the spec\\\)\.\n1\\\. not a list\n\\> not a quote\n/,
    );
  });

  test('md is a glossary grouped by category, sorted by term, with see-also anchors', async () => {
    await seed(app, SAMPLE);
    await seed(app, [
      { id: 40, term: 'a11y *audit*', definition: '# Checks\n- one', category: 'frontend' },
    ]);
    const run = await runCli(['export', '--format', 'md', '--url', app.url]);
    assert.equal(run.code, 0, run.stderr);
    const md = run.stdout;
    const headings = md.split('\n').filter((line) => line.startsWith('#'));
    assert.deepEqual(headings.slice(0, 8), [
      '# Glossary',
      '## frontend',
      '### <a id="term-40"></a>a11y \\*audit\\*',
      '### <a id="term-16"></a>Accessibility tree',
      '### <a id="term-8"></a>Content Security Policy',
      '### <a id="term-5"></a>Hydration',
      '### <a id="term-6"></a>Server-side rendering',
      '## backend',
    ]);
    assert.deepEqual(
      headings.filter((line) => line.startsWith('## ')),
      ['## frontend', '## backend', '## devops', '## docs-as-code'],
    );
    assert.match(md, /\n\\# Checks\n\\- one\n/);
    assert.match(
      md,
      /### <a id="term-12"><\/a>Canary release\n\nRolling .*\n\nSee also: \[Blue-green deployment\]\(#term-9\), ID 99 \(not in this glossary\)\n/,
    );
  });

  test('an empty glossary exports as [] and re-imports as nothing, exit status 0', async () => {
    const exported = await runCli(['export', '--url', app.url]);
    assert.equal(exported.stdout, '[]\n');
    const imported = await runCli(['import', '-', '--url', app.url], { stdin: exported.stdout });
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal(imported.stdout, '-: 0 created, 0 rejected (0 terms)\n');
  });
});

describe('round trip', () => {
  const apps: ListeningApp[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });

  for (const format of ['json', 'csv'] as const) {
    test(`a ${format} export imported into an empty glossary reproduces it exactly`, async () => {
      const [first, second] = [await listenApp(), await listenApp()];
      apps.push(first, second);
      await seed(first, [...SAMPLE, ...AWKWARD, ...FORMULAS]);
      const exported = await runCli(['export', '--format', format, '--url', first.url]);
      assert.equal(exported.code, 0, exported.stderr);
      const file = writeTemp(`glossary.${format}`, exported.stdout);
      const imported = await runCli(['import', file, '--url', second.url]);
      assert.equal(imported.code, 0, imported.stdout + imported.stderr);
      const again = await runCli(['export', '--format', format, '--url', second.url]);
      assert.equal(again.stdout, exported.stdout);
      assert.deepEqual(await storedTerms(second), await storedTerms(first));
    });
  }
});

describe('glossary usage and failures', () => {
  test('an unreachable service is one clear line, exit status 1', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    for (const args of [['export'], ['import', SAMPLE_FILE]]) {
      const run = await runCli([...args, '--url', url]);
      assert.equal(run.code, 1);
      assert.equal(
        run.stderr,
        `glossary: cannot reach the glossary service at ${url} (ECONNREFUSED)\n`,
      );
    }
  });

  for (const [args, message] of [
    [
      ['export', '--format', 'xml'],
      /^glossary: option '--format <FORMAT>' argument 'xml' is invalid\. Allowed choices are json, csv, md, tbx, tbx-v2, vale, textlint, mkdocs, sphinx, hugo\.\n$/,
    ],
    [['export', '--colour'], /^glossary: unknown option '--colour'\n$/],
    [
      ['import', 'x.json', '--url', 'ftp://host'],
      /^glossary: option '--url <URL>' argument 'ftp:\/\/host' is invalid\. expected an http:\/\/ or https:\/\/ address\n$/,
    ],
    [
      ['import', 'x.json', '--batch-size', '20000'],
      /^glossary: option '--batch-size <N>' argument '20000' is invalid\. expected a whole number from 1 to 10000\n$/,
    ],
    [['import'], /^glossary: missing required argument 'FILE'\n$/],
    [['publish'], /^glossary: unknown command 'publish'/],
  ] as const) {
    test(`a bad flag or argument (${args.join(' ')}) is one line on stderr, exit status 2`, async () => {
      const run = await runCli([...args]);
      assert.equal(run.code, 2);
      assert.match(run.stderr, message);
      assert.equal(run.stdout, '');
    });
  }

  for (const command of ['serve', 'import', 'export']) {
    test(`glossary ${command} --help describes the command, exit status 0`, async () => {
      const run = await runCli([command, '--help']);
      assert.equal(run.code, 0);
      assert.match(run.stdout, new RegExp(`^Usage: glossary ${command} `));
    });
  }

  test('glossary serve starts the service from the environment and stops on SIGTERM', async () => {
    const dir = tempDir('glossary-serve-');
    const child = spawn(process.execPath, [GLOSSARY_BIN, 'serve'], {
      env: { ...process.env, PORT: '0', DATABASE_URL: `sqlite:${dir}/g.db`, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
        const listening = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (listening?.[1]) resolve(listening[1]);
      });
      child.on('close', () => reject(new Error(`serve exited: ${output}`)));
    });
    const health = await fetch(`${url}/healthz`);
    assert.deepEqual(await health.json(), { status: 'ok' });
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  });
});

describe('glossary export as the list arrives', () => {
  test('writes the first terms before the service has finished sending the list', async () => {
    // A service whose list never ends: an export that waited for the whole list (and held it
    // in memory) would print nothing.
    const term = (id: number) => JSON.stringify({ ...(AWKWARD[0] as object), id });
    const server = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write(`[${term(1)}`);
      let id = 2;
      const more = setInterval(() => response.write(`,${term(id++)}`), 20);
      response.on('close', () => clearInterval(more));
    });
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as net.AddressInfo;
    const child = spawn(
      process.execPath,
      [GLOSSARY_BIN, 'export', '--format', 'csv', '--url', `http://127.0.0.1:${port}`],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let out = '';
      child.stdout.setEncoding('utf8');
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          out += chunk;
          if (out.includes('\r\n1,')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`exited ${code} before writing: ${out}`)));
      });
      assert.match(
        out,
        /^id,term,definition,category,see_also,aliases,avoid\r\n1,"Quote ""this"", please"/,
      );
    } finally {
      child.kill();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
