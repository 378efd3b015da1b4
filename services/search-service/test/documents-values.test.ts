import request from 'supertest';
import { SEARCH_ERRORS } from '@hub/contracts';
import type { SearchApp } from '../src/app';
import { newCollection, storedDoc, useSearchApp } from './helpers/harness';
import { client, docJson, type TestCollection } from './helpers/requests';

/** Values kept exactly (int64, Unicode, 1024-byte dockeys), the field count, parameter precedence. */

let app: SearchApp;
const db = useSearchApp((t) => ({ app } = t));

const A = SEARCH_ERRORS.add;
const stored = (c: TestCollection, dockey: string) => storedDoc(db.pool, c, dockey);

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
