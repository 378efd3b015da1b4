import { SEARCH_ERRORS } from '@hub/contracts';
import type { SearchApp } from '../src/app';
import { key, raw, useErrorScenarios } from './helpers/error-requests';
import { newCollection } from './helpers/harness';
import { call, client, docJson, type TestCollection } from './helpers/requests';

/** Which error answers when a request breaks several rules; keys and ids of other collections. */

let app: SearchApp;
let c: TestCollection;
let other: TestCollection;
useErrorScenarios((t) => ({ app, c, other } = t));

const A = SEARCH_ERRORS.add;
const F = SEARCH_ERRORS.fieldUpdate;
const S = SEARCH_ERRORS.search;
const C = SEARCH_ERRORS.common;

test('When the call limit is reached, status still answers (it is not counted)', async () => {
  const limited = await newCollection(app, { max_api_calls: 1 });
  const api = client(app, limited);
  expect((await api.search({ q: 'x' })).status).toBe(200);
  expect((await api.search({ q: 'x' })).text).toBe(C.callLimitReached.text);
  const status = await api.status();
  expect(status.status).toBe(200);
});

test('When a request breaks several rules, the earliest check of CHECK_ORDER answers', async () => {
  // no apikey and an unknown collection: apikey is null (step 1) before cid (step 2)
  let res = await call(app, 'post', '/v2/unknown1/docs', {});
  expect(res.text).toBe(C.apikeyNull.text);
  // unknown collection and a wrong key: cid is invalid (step 2) before apikey (step 3)
  res = await call(app, 'post', '/v2/Zz9Zz9Zz/docs', { apikey: other.apikey });
  expect(res.text).toBe(C.cidInvalid.text);
  // wrong key and a bad format: apikey is invalid (3) before return type (5)
  res = await call(app, 'get', `/v2/${c.cid}/search/html`, { apikey: other.apikey }, 'query');
  expect(res.text).toBe(C.apikeyInvalid.text);
  // bad format and no q: return type (5) before q is null (6)
  res = await call(app, 'get', `/v2/${c.cid}/search/html`, { apikey: c.apikey }, 'query');
  expect(res.text).toBe(S.returnTypeInvalid.text);
  // add: invalid encoding before dockey is null, dockey before doc
  res = await raw('add', `${key()}&doc=%FF`, 'body');
  expect(res.text).toBe(A.invalidEncoding.text);
  res = await raw('add', `${key()}&doc=`, 'body');
  expect(res.text).toBe(A.dockeyNull.text);
  // add: an existing dockey is reported before a full collection
  const small = await newCollection(app, { max_documents: 1 });
  const api = client(app, small);
  await api.add('one', docJson());
  expect((await api.add('one', docJson())).text).toBe(A.alreadyExists.text);
  // field update: dockey before fieldname
  res = await raw('fieldUpdate', `${key()}&fieldname=bad`, 'body');
  expect(res.text).toBe(F.dockeyNull.text);
});

test('When the key of one collection is used on another, the answer is 401 apikey is invalid', async () => {
  for (const op of ['add', 'update', 'delete', 'fieldUpdate', 'status', 'search'] as const) {
    const res = await raw(op, `apikey=${other.apikey}&dockey=existing&q=x`, 'query');
    expect([op, res.status, res.text]).toEqual([op, 401, C.apikeyInvalid.text]);
  }
});

test('When the apikey is missing, empty or blank, every operation answers 400 apikey is null', async () => {
  for (const op of ['add', 'update', 'delete', 'fieldUpdate', 'status', 'search'] as const) {
    for (const q of ['dockey=x', 'apikey=&dockey=x', 'apikey=++&dockey=x']) {
      const res = await raw(op, q, 'query');
      expect([op, q, res.status, res.text]).toEqual([op, q, 400, C.apikeyNull.text]);
    }
  }
});

test('When the collection id is not 8 letters or digits, every operation answers 404 cid is invalid', async () => {
  for (const cid of ['short', 'toolong12', 'abc-defg', 'Zz9Zz9Zz']) {
    const res = await raw('search', `${key()}&q=x`, 'query', app, cid);
    expect([cid, res.status, res.text]).toEqual([cid, 404, C.cidInvalid.text]);
  }
});

test('When the apikey is not in MD5 form or has a bad escape, the answer is 401 apikey is invalid', async () => {
  for (const apikey of ['123', 'g'.repeat(32), `${c.apikey}0`, '%FF%FE']) {
    const res = await raw('status', `apikey=${apikey}`, 'query');
    expect([apikey, res.status, res.text]).toEqual([apikey, 401, C.apikeyInvalid.text]);
  }
  // hex digits are compared without regard to case
  const res = await raw('status', `apikey=${c.apikey.toUpperCase()}`, 'query');
  expect(res.status).toBe(200);
});
