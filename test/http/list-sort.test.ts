import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sampleTerm, startApp, type TestApp } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';

const names = (body: { term: string; id: number }[]) => body.map((t) => `${t.term}#${t.id}`);

for (const backend of backends()) {
  describe(`GET /terms?sort= (${backend.name})`, () => {
    let t: TestApp;
    // Creation order: ids 30, 10, 20, 40, 10 (POST /terms allows the repeat), 5.
    const created = [
      sampleTerm(30, { term: 'beta' }),
      sampleTerm(10, { term: 'Alpha' }),
      sampleTerm(20, { term: 'alpha' }),
      sampleTerm(40, { term: 'Ärger', category: 'devops' }),
      sampleTerm(10, { term: 'STRASSE' }),
      sampleTerm(5, { term: 'straße' }),
    ];
    before(async () => {
      t = await startApp(backend);
      for (const term of created) {
        const res = await t.app.inject({ method: 'POST', url: '/terms', payload: term });
        assert.equal(res.statusCode, 201);
      }
    });
    after(() => t.close());

    test('no sort is creation order', async () => {
      const res = await t.app.inject('/terms');
      assert.deepEqual(names(res.json()), [
        'beta#30',
        'Alpha#10',
        'alpha#20',
        'Ärger#40',
        'STRASSE#10',
        'straße#5',
      ]);
    });

    test('sort=term orders by name case-insensitively, ties in creation order', async () => {
      const res = await t.app.inject('/terms?sort=term');
      // Folded: alpha, alpha, beta, strasse, strasse, ärger (code point order after folding).
      assert.deepEqual(names(res.json()), [
        'Alpha#10',
        'alpha#20',
        'beta#30',
        'STRASSE#10',
        'straße#5',
        'Ärger#40',
      ]);
    });

    test('from splits the alphabet: sort=term from it on, sort=-term before it, backwards', async () => {
      const at = async (url: string) => {
        const res = await t.app.inject(url);
        assert.equal(res.statusCode, 200, url);
        return { names: names(res.json()), total: res.headers['x-total-count'] };
      };
      assert.deepEqual((await at('/terms?sort=term&from=b')).names, [
        'beta#30',
        'STRASSE#10',
        'straße#5',
        'Ärger#40',
      ]);
      // Folded like the names: STRASSE and straße are where "Strasse" is.
      assert.deepEqual((await at('/terms?sort=term&from=Straße')).names, [
        'STRASSE#10',
        'straße#5',
        'Ärger#40',
      ]);
      // Backwards, ties still in creation order.
      assert.deepEqual((await at('/terms?sort=-term&from=b')).names, ['Alpha#10', 'alpha#20']);
      assert.deepEqual(await at('/terms?sort=term&from=b&limit=2&offset=1'), {
        names: ['STRASSE#10', 'straße#5'],
        total: '4',
      });
      // By code point: ä comes after z; nothing comes after 😀 here.
      assert.deepEqual((await at('/terms?sort=term&from=zzz')).names, ['Ärger#40']);
      assert.deepEqual((await at(`/terms?sort=term&from=${encodeURIComponent('😀')}`)).names, []);
      assert.deepEqual((await at('/terms?sort=term&from=b&category=devops')).names, ['Ärger#40']);
      const link = (await t.app.inject('/terms?sort=term&from=b&limit=2')).headers.link;
      assert.equal(link, '</terms?sort=term&from=b&limit=2&offset=2>; rel="next"');
    });

    test('from without a name order is a 422 at ["query","from"]', async () => {
      for (const url of ['/terms?from=b', '/terms?sort=id&from=b']) {
        const res = await t.app.inject(url);
        assert.equal(res.statusCode, 422, url);
        assert.deepEqual(res.json().detail, [
          {
            loc: ['query', 'from'],
            msg: 'from needs sort=term or sort=-term',
            type: 'value_error',
            input: 'b',
          },
        ]);
      }
    });

    test('sort=-term reverses the names but keeps ties in creation order', async () => {
      const res = await t.app.inject('/terms?sort=-term');
      assert.deepEqual(names(res.json()), [
        'Ärger#40',
        'STRASSE#10',
        'straße#5',
        'beta#30',
        'Alpha#10',
        'alpha#20',
      ]);
    });

    test('sort=id and sort=-id order by id, a repeated id in creation order', async () => {
      const up = await t.app.inject('/terms?sort=id');
      assert.deepEqual(names(up.json()), [
        'straße#5',
        'Alpha#10',
        'STRASSE#10',
        'alpha#20',
        'beta#30',
        'Ärger#40',
      ]);
      const down = await t.app.inject('/terms?sort=-id');
      assert.deepEqual(names(down.json()), [
        'Ärger#40',
        'beta#30',
        'alpha#20',
        'Alpha#10',
        'STRASSE#10',
        'straße#5',
      ]);
    });

    test('sort combines with the filters and with pages', async () => {
      const res = await t.app.inject(
        '/terms?search=A&category=backend&sort=-term&limit=2&offset=1',
      );
      assert.deepEqual(names(res.json()), ['straße#5', 'beta#30']);
      assert.equal(res.headers['x-total-count'], '5');
    });

    test('an unknown sort is a 422 at ["query","sort"] listing the permitted values', async () => {
      const res = await t.app.inject('/terms?sort=name');
      assert.equal(res.statusCode, 422);
      assert.deepEqual(res.json(), {
        detail: [
          {
            loc: ['query', 'sort'],
            msg: "value is not a valid enumeration member; permitted: 'term', '-term', 'id', '-id'",
            type: 'type_error.enum',
            input: 'name',
          },
        ],
      });
    });
  });

  describe(`GET /terms?sort= across chunks (${backend.name})`, () => {
    let t: TestApp;
    const count = 1234;
    before(async () => {
      t = await startApp(backend);
      // Names with many ties (7 distinct), ids shuffled, so every order crosses chunk borders.
      const items = Array.from({ length: count }, (_, i) =>
        sampleTerm((i * 7919) % count, { term: `name ${i % 7}` }),
      );
      const res = await t.app.inject({ method: 'POST', url: '/terms/bulk', payload: items });
      assert.equal(res.statusCode, 207);
    });
    after(() => t.close());

    test('each sort of a long list is complete and in order', async () => {
      const created = (await t.app.inject('/terms')).json() as { id: number; term: string }[];
      assert.equal(created.length, count);
      // Array sort is stable: equal names stay in creation order.
      const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
      const byTerm = [...created].sort((a, b) => compare(a.term, b.term));
      const byTermDesc = [...created].sort((a, b) => compare(b.term, a.term));
      const byId = [...created].sort((a, b) => a.id - b.id);
      for (const [sort, expected] of [
        ['term', byTerm],
        ['-term', byTermDesc],
        ['id', byId],
        ['-id', [...byId].reverse()],
      ] as const) {
        const res = await t.app.inject(`/terms?sort=${sort}`);
        assert.deepEqual(
          res.json().map((term: { id: number }) => term.id),
          expected.map((term) => term.id),
          sort,
        );
      }
    });
  });
}
