import request from 'supertest';
import { CHECK_ORDER, SEARCH_ERRORS, type ContractError } from '@hub/contracts';
import type { SearchApp } from '../src/app';
import { key, raw, useErrorScenarios } from './helpers/error-requests';
import { newCollection } from './helpers/harness';
import { call, client, docJson, form, type TestCollection } from './helpers/requests';

/** Which error answers when a request breaks several rules; keys and ids of other collections. */

let app: SearchApp;
let c: TestCollection;
let other: TestCollection;
useErrorScenarios((t) => ({ app, c, other } = t));

const A = SEARCH_ERRORS.add;
const F = SEARCH_ERRORS.fieldUpdate;
const S = SEARCH_ERRORS.search;
const C = SEARCH_ERRORS.common;

type Operation = 'add' | 'update' | 'delete' | 'fieldUpdate' | 'status' | 'search';

/**
 * What each operation sends that breaks a check of its parameters (step 6): add and update a
 * doc that is not UTF-8 (answered at the HTTP edge, before dockey), delete and field update no
 * dockey, search no q; status has no parameters.
 */
const BAD_PARAMS: Record<Operation, { error: ContractError; query: string } | null> = {
  add: { error: A.invalidEncoding, query: 'doc=%FF' },
  update: { error: SEARCH_ERRORS.update.invalidEncoding, query: 'doc=%FF' },
  delete: { error: SEARCH_ERRORS.delete.dockeyNull, query: '' },
  fieldUpdate: { error: F.dockeyNull, query: '' },
  search: { error: S.qNull, query: '' },
  status: null,
};

/**
 * The checks a route makes before its use case acts, each named by the error it answers: those
 * of steps 1–5 that the operation makes, and its check of BAD_PARAMS.
 */
function checksOf(op: Operation): ContractError[] {
  return [
    C.apikeyNull,
    C.cidInvalid,
    C.apikeyInvalid,
    ...(op === 'status' ? [] : [C.callLimitReached]), // status is not counted
    ...(op === 'search' || op === 'status' ? [S.returnTypeInvalid] : []),
    ...(BAD_PARAMS[op] ? [BAD_PARAMS[op].error] : []),
  ];
}

/** The step of CHECK_ORDER that answers this error for this operation. */
function stepOf(op: Operation, error: ContractError): number {
  const found = CHECK_ORDER.find((s) => (s.byOperation?.[op] ?? s.errors).includes(error));
  if (!found) throw new Error(`${op}: ${error.text} is in no step of CHECK_ORDER`);
  return found.step;
}

/**
 * A request of `op` that breaks the checks of steps 1–5 in `broken` (no apikey; an unknown
 * collection; another collection's key; a collection that has used its API calls; the format
 * html) and always its BAD_PARAMS: in the tests below that check is the last broken one.
 */
function requestBreaking(op: Operation, broken: ContractError[], limited: TestCollection) {
  const breaks = (error: ContractError) => broken.includes(error);
  const target = breaks(C.callLimitReached) ? limited : c;
  const cid = breaks(C.cidInvalid) ? 'Zz9Zz9Zz' : target.cid;
  const apikey = breaks(C.apikeyNull)
    ? undefined
    : breaks(C.apikeyInvalid)
      ? other.apikey
      : target.apikey;
  const format = breaks(S.returnTypeInvalid) ? 'html' : 'json';
  const [method, path] = (
    {
      add: ['post', `/v2/${cid}/docs`],
      update: ['put', `/v2/${cid}/docs`],
      delete: ['delete', `/v2/${cid}/docs`],
      fieldUpdate: ['put', `/v2/${cid}/docs/fields`],
      status: ['get', `/v2/${cid}/status/${format}`],
      search: ['get', `/v2/${cid}/search/${format}`],
    } as const
  )[op];
  const query = [form({ apikey }), BAD_PARAMS[op]?.query].filter(Boolean).join('&');
  return request(app)[method](`${path}?${query}`);
}

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

test('When a request breaks the checks of several steps, every operation answers the earliest step of CHECK_ORDER', async () => {
  const limited = await newCollection(app, { max_api_calls: 1 });
  expect((await client(app, limited).search({ q: 'x' })).status).toBe(200); // its one call
  for (const op of ['add', 'update', 'delete', 'fieldUpdate', 'status', 'search'] as const) {
    // the checks in the order the table gives them; a request breaking the checks from the
    // i-th on answers the i-th, so the routes must make them in exactly this order
    const ordered = checksOf(op).sort((a, b) => stepOf(op, a) - stepOf(op, b));
    for (const [i, expected] of ordered.entries()) {
      const broken = ordered.slice(i);
      const res = await requestBreaking(op, broken, limited);
      expect([op, broken.map((e) => e.text), res.status, res.text]).toEqual([
        op,
        broken.map((e) => e.text),
        expected.status,
        expected.text,
      ]);
    }
  }
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
