import request from 'supertest';
import { SEARCH_ERRORS } from '@hub/contracts';
import type { SearchApp } from '../src/app';
import { newCollection, useSearchApp } from './helpers/harness';
import { client, docJson, statusDocumentCount, type TestCollection } from './helpers/requests';

/** force on add: what counts as 1, and making room when the maximum is reached. */

let app: SearchApp;
const db = useSearchApp((t) => ({ app } = t));

const A = SEARCH_ERRORS.add;
const documentCount = (c: TestCollection) => statusDocumentCount(app, c);

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
