import request from 'supertest';
import { SEARCH_ERRORS } from '@hub/contracts';
import type { SearchApp } from '../src/app';
import { newCollection, useSearchApp } from './helpers/harness';
import { client, docJson, type Placement, type TestCollection } from './helpers/requests';

/** The spec's "States and transitions" table, through the HTTP API, in both placements. */

let app: SearchApp;
const db = useSearchApp((t) => ({ app } = t));

const A = SEARCH_ERRORS.add;

async function stored(c: TestCollection, dockey: string): Promise<string | null> {
  const { rows } = await db.pool.query(
    'SELECT doc FROM documents WHERE collection_id = $1 AND dockey = $2',
    [c.cid, dockey],
  );
  return rows[0]?.doc ?? null;
}

async function documentCount(c: TestCollection): Promise<number> {
  const res = await client(app, c).status();
  return JSON.parse(res.text).document_count;
}

async function found(c: TestCollection, q: string): Promise<string[]> {
  const res = await client(app, c).search({ q, len: 100 });
  expect(res.status).toBe(200);
  return JSON.parse(res.text).docs.map((d: { dockey: string }) => d.dockey);
}

describe.each(['body', 'query'] as Placement[])('parameters in the %s', (placement) => {
  let c: TestCollection;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    c = await newCollection(app, { max_documents: 3 });
    api = client(app, c, placement);
  });

  test('When a dockey is absent and there is room, add stores the document and answers 200 OK', async () => {
    const res = await api.add('d1', docJson({ icontents_title: 'first apple' }));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe('OK');
    expect(JSON.parse((await stored(c, 'd1'))!)).toMatchObject({ icontents_title: 'first apple' });
    expect(await found(c, 'apple')).toEqual(['d1']);
    expect(await documentCount(c)).toBe(1);
  });

  test('When the dockey already exists, add answers 406 document is already exists and changes nothing', async () => {
    const res = await api.add('d1', docJson({ icontents_title: 'other' }));
    expect([res.status, res.text]).toEqual([406, A.alreadyExists.text]);
    expect(JSON.parse((await stored(c, 'd1'))!).icontents_title).toBe('first apple');
    expect(await documentCount(c)).toBe(1);
  });

  test('When a document is updated, the stored fields are replaced and omitted fields disappear', async () => {
    await api.add(
      'd2',
      docJson({ icontents_title: 'second', contents_note: 'keep?', score_view: 3 }),
    );
    const res = await api.update('d2', docJson({ icontents_title: 'second pear' }));
    expect([res.status, res.text]).toEqual([200, 'OK']);
    const doc = JSON.parse((await stored(c, 'd2'))!);
    expect(doc).toEqual({
      icontents_title: 'second pear',
      icontents_body: 'a body',
      score_regdate: 1700000000,
    });
    expect(await found(c, 'pear')).toEqual(['d2']);
    expect(await found(c, 'second')).toEqual(['d2']);
    const { rows } = await db.pool.query(
      'SELECT version FROM documents WHERE collection_id = $1 AND dockey = $2',
      [c.cid, 'd2'],
    );
    expect(rows[0].version).toBe('2');
  });

  test('When a score field is updated, only that field changes (and a new score field is added)', async () => {
    const res = await api.updateField('d2', 'score_regdate', '1700000500');
    expect([res.status, res.text]).toEqual([200, 'OK']);
    expect((await api.updateField('d2', 'score_view', '42')).status).toBe(200);
    const doc = JSON.parse((await stored(c, 'd2'))!);
    expect(doc).toEqual({
      icontents_title: 'second pear',
      icontents_body: 'a body',
      score_regdate: 1700000500,
      score_view: 42,
    });
    const search = await api.search({ q: 'pear', startdate: 1700000400, enddate: 1700000600 });
    expect(JSON.parse(search.text).numfound).toBe(1);
  });

  test('When update, field update or delete name a dockey that is not there, they answer 404 dockey is invalid', async () => {
    for (const res of [
      await api.update('nope', docJson()),
      await api.updateField('nope', 'score_view', '1'),
      await api.delete('nope'),
    ]) {
      expect([res.status, res.text]).toEqual([404, SEARCH_ERRORS.update.dockeyInvalid.text]);
    }
  });

  test('When a document is deleted, it is gone from storage, search and the count', async () => {
    const res = await api.delete('d2');
    expect([res.status, res.text]).toEqual([200, 'OK']);
    expect(await stored(c, 'd2')).toBeNull();
    expect(await found(c, 'pear')).toEqual([]);
    expect(await documentCount(c)).toBe(1);
    expect((await api.delete('d2')).status).toBe(404);
  });

  test('When a deleted dockey is added again, it is a new document', async () => {
    const res = await api.add('d2', docJson({ icontents_title: 'reborn' }));
    expect(res.status).toBe(200);
    expect(await found(c, 'reborn')).toEqual(['d2']);
    expect(await found(c, 'pear')).toEqual([]);
    const { rows } = await db.pool.query(
      'SELECT version FROM documents WHERE collection_id = $1 AND dockey = $2',
      [c.cid, 'd2'],
    );
    expect(rows[0].version).toBe('1');
  });

  test('When the maximum is reached, add with force=0 answers 406 index max reached and adds nothing', async () => {
    expect((await api.add('d3', docJson({ icontents_title: 'third' }))).status).toBe(200);
    expect(await documentCount(c)).toBe(3);
    for (const force of [undefined, 0]) {
      const res = await api.add('d4', docJson({ icontents_title: 'fourth' }), force);
      expect([res.status, res.text]).toEqual([406, A.indexMaxReached.text]);
    }
    expect(await stored(c, 'd4')).toBeNull();
    expect(await found(c, 'fourth')).toEqual([]);
  });

  test('When the maximum is reached, add with force=1 removes the oldest added document and adds the new one', async () => {
    // d1 is the earliest added (d2 was re-added later, d3 after it)
    const res = await api.add('d4', docJson({ icontents_title: 'fourth' }), 1);
    expect([res.status, res.text]).toEqual([200, 'OK']);
    expect(await stored(c, 'd1')).toBeNull();
    expect(await found(c, 'apple')).toEqual([]);
    expect(await found(c, 'fourth')).toEqual(['d4']);
    expect(await documentCount(c)).toBe(3);
    // an update does not make a document younger: d2 (re-added) is next, then d3
    await api.update('d2', docJson({ icontents_title: 'reborn again' }));
    expect((await api.add('d5', docJson(), 1)).status).toBe(200);
    expect(await stored(c, 'd2')).toBeNull();
    expect(await stored(c, 'd3')).not.toBeNull();
  });

  test('When force=1 and there is room, add simply adds', async () => {
    await api.delete('d5');
    expect((await api.add('d6', docJson(), 1)).status).toBe(200);
    expect(await stored(c, 'd3')).not.toBeNull();
    expect(await documentCount(c)).toBe(3);
  });
});

test('When force is anything but 1, it counts as 0', async () => {
  const c = await newCollection(app, { max_documents: 1 });
  const api = client(app, c);
  await api.add('a', docJson());
  for (const force of ['2', 'true', 'yes', '']) {
    const res = await request(app)
      .post(`/v2/${c.cid}/docs`)
      .type('form')
      .send(`apikey=${c.apikey}&dockey=b&force=${force}&doc=${encodeURIComponent(docJson())}`);
    expect([force, res.text]).toEqual([force, A.indexMaxReached.text]);
  }
});

test('When the maximum was lowered below the count, force=1 removes enough of the oldest to fit', async () => {
  const c = await newCollection(app, { max_documents: 4 });
  const api = client(app, c);
  for (const k of ['a', 'b', 'c', 'd']) await api.add(k, docJson());
  await db.pool.query('UPDATE collections SET max_documents = 2 WHERE id = $1', [c.cid]);
  expect((await api.add('e', docJson(), 1)).status).toBe(200);
  const { rows } = await db.pool.query(
    'SELECT dockey FROM documents WHERE collection_id = $1 ORDER BY id',
    [c.cid],
  );
  expect(rows.map((r) => r.dockey)).toEqual(['d', 'e']);
  expect(await documentCount(c)).toBe(2);
});

test('When a collection has a maximum of 0, add answers 406 index max reached even with force=1', async () => {
  const c = await newCollection(app, { max_documents: 0 });
  const res = await client(app, c).add('a', docJson(), 1);
  expect(res.text).toBe(A.indexMaxReached.text);
});

test('When a document has int64 scores, add → search → field update → search keeps them exact', async () => {
  const c = await newCollection(app);
  const api = client(app, c);
  const doc =
    '{"icontents_title":"exact numbers","icontents_body":"b","score_regdate":1700000000,' +
    '"score_big":9223372036854775807,"score_small":-9223372036854775808,"score_zero":0}';
  expect((await api.add('n', doc)).status).toBe(200);
  let res = await api.search({ q: 'exact' });
  expect(res.text).toContain('"score_big":9223372036854775807,"score_small":-9223372036854775808');
  res = await api.search({ q: 'exact' }, 'xml');
  expect(res.text).toContain('<score_big>9223372036854775807</score_big>');
  expect((await api.updateField('n', 'score_zero', '9223372036854775807')).status).toBe(200);
  expect((await api.updateField('n', 'score_big', '-9223372036854775808')).status).toBe(200);
  res = await api.search({ q: 'numbers' });
  expect(res.text).toContain(
    '"score_big":-9223372036854775808,"score_small":-9223372036854775808,"score_zero":9223372036854775807',
  );
  // out of int64: refused
  res = await api.updateField('n', 'score_zero', '9223372036854775808');
  expect(res.text).toBe(SEARCH_ERRORS.fieldUpdate.fieldvalueInvalid.text);
  expect(await stored(c, 'n')).toContain('"score_zero":9223372036854775807');
});

test('When a field update would make the doc exceed 35 fields, it answers 400 fieldname is invalid', async () => {
  const c = await newCollection(app);
  const api = client(app, c);
  const extra: Record<string, string> = {};
  for (let i = 0; i < 32; i++) extra[`contents_f${i}`] = 'x';
  expect((await api.add('full', docJson(extra))).status).toBe(200);
  const res = await api.updateField('full', 'score_new', '1');
  expect([res.status, res.text]).toEqual([400, SEARCH_ERRORS.fieldUpdate.fieldnameInvalid.text]);
  expect((await api.updateField('full', 'score_regdate', '1')).status).toBe(200);
});

test('When parameters come in both the query string and the body, the body wins', async () => {
  const c = await newCollection(app);
  const res = await request(app)
    .post(`/v2/${c.cid}/docs?apikey=${'0'.repeat(32)}&dockey=from-query`)
    .type('form')
    .send(`apikey=${c.apikey}&dockey=from-body&doc=${encodeURIComponent(docJson())}`);
  expect(res.status).toBe(200);
  expect(await stored(c, 'from-body')).not.toBeNull();
  expect(await stored(c, 'from-query')).toBeNull();
});

test('When the same parameter repeats in one place, the first occurrence counts', async () => {
  const c = await newCollection(app);
  const res = await request(app)
    .post(`/v2/${c.cid}/docs`)
    .type('form')
    .send(`apikey=${c.apikey}&dockey=first&dockey=second&doc=${encodeURIComponent(docJson())}`);
  expect(res.status).toBe(200);
  expect(await stored(c, 'first')).not.toBeNull();
});

test('When a dockey or doc holds any Unicode (Hangul, emoji, +, &, =, %), it is stored exactly', async () => {
  const c = await newCollection(app);
  const api = client(app, c);
  const dockey = '서울 key+&=%/😀';
  const doc = docJson({
    icontents_title: '맛집 😀 a+b&c=d%e',
    contents_x: '\u00e9\u0301 \ufeffbom',
  });
  expect((await api.add(dockey, doc)).status).toBe(200);
  const res = await api.search({ q: '맛집' });
  const hit = JSON.parse(res.text).docs[0];
  expect(hit.dockey).toBe(dockey);
  expect(hit.icontents_title).toBe('맛집 😀 a+b&c=d%e');
  expect(hit.contents_x).toBe('\u00e9\u0301 \ufeffbom');
  expect((await api.delete(dockey)).status).toBe(200);
});

test('When a dockey is exactly 1024 bytes it is accepted; a dockey of spaces is invalid', async () => {
  const c = await newCollection(app);
  const api = client(app, c);
  const key = '가'.repeat(341) + 'a'; // 341 × 3 + 1 bytes
  expect((await api.add(key, docJson())).status).toBe(200);
  expect((await api.add('   ', docJson())).text).toBe(A.dockeyInvalid.text);
});
