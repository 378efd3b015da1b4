import { SEARCH_ERRORS } from '@hub/contracts';
import type { SearchApp } from '../src/app';
import { newCollection, storedDoc, useSearchApp } from './helpers/harness';
import { client, docJson, statusDocumentCount } from './helpers/requests';
import type { Placement, TestCollection } from './helpers/requests';

/** The spec's "States and transitions" table, through the HTTP API, in both placements. */

let app: SearchApp;
const db = useSearchApp((t) => ({ app } = t));

const A = SEARCH_ERRORS.add;
const stored = (c: TestCollection, dockey: string) => storedDoc(db.pool, c, dockey);
const documentCount = (c: TestCollection) => statusDocumentCount(app, c);

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
