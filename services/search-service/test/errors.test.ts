import express from 'express';
import request from 'supertest';
import {
  SEARCH_ERROR_ROWS,
  SEARCH_ERRORS,
  SEARCH_LIMITS,
  type ContractError,
} from '@hub/contracts';
import { createLogger } from '@hub/service-kit';
import { errorHandler } from '../src/http/errors';
import type { SearchApp } from '../src/app';
import { failingPool, makeApp, newCollection, useSearchApp } from './helpers/harness';
import { call, client, docJson, type Placement, type TestCollection } from './helpers/requests';

/**
 * Every row of every error table of the spec, table-driven from SEARCH_ERROR_ROWS: each row
 * has a scenario that breaks exactly its rule, run with the parameters in the query string and
 * in a form body; the answer must be the row's status and exact text as text/plain.
 */

let app: SearchApp;
let c: TestCollection;
let other: TestCollection;

const db = useSearchApp((t) => ({ app, c } = t), { collection: true });
beforeAll(async () => {
  other = await newCollection(app);
  const res = await client(app, c).add('existing', docJson());
  expect(res.status).toBe(200);
});

interface Ctx {
  placement: Placement;
}
type Scenario = (ctx: Ctx) => Promise<request.Response>;

const VALID_KEY_OF = () => c.apikey;
const bigDockey = 'k'.repeat(SEARCH_LIMITS.dockeyMaxBytes + 1);
const fields36 = () => {
  const extra: Record<string, string> = {};
  for (let i = 0; i < SEARCH_LIMITS.maxFields - 2; i++) extra[`contents_f${i}`] = 'x';
  return docJson(extra);
};

/** One request of an operation with raw (already encoded) extra parameters. */
function raw(
  op: 'add' | 'update' | 'delete' | 'fieldUpdate' | 'status' | 'search',
  encoded: string,
  placement: Placement,
  target: SearchApp = app,
  cid = c.cid,
): request.Test {
  const [method, path] = {
    add: ['post', `/v2/${cid}/docs`],
    update: ['put', `/v2/${cid}/docs`],
    delete: ['delete', `/v2/${cid}/docs`],
    fieldUpdate: ['put', `/v2/${cid}/docs/fields`],
    status: ['get', `/v2/${cid}/status/json`],
    search: ['get', `/v2/${cid}/search/json`],
  }[op] as ['get' | 'post' | 'put' | 'delete', string];
  const agent = request(target);
  if (placement === 'query') return agent[method](`${path}?${encoded}`);
  return agent[method](path).set('Content-Type', 'application/x-www-form-urlencoded').send(encoded);
}

const key = () => `apikey=${VALID_KEY_OF()}`;
const enc = encodeURIComponent;

/** A request that breaks one doc rule, for add (new dockey) or update (existing dockey). */
function withDoc(op: 'add' | 'update', doc: string | null): Scenario {
  return ({ placement }) => {
    const dockey = op === 'add' ? `new-${Math.random()}` : 'existing';
    const docPart = doc === null ? '' : `&doc=${enc(doc)}`;
    return raw(op, `${key()}&dockey=${enc(dockey)}${docPart}`, placement);
  };
}

/** A request made through an app whose database fails for statements matching `pattern`. */
function failing(
  pattern: RegExp,
  send: (target: SearchApp, placement: Placement) => request.Test,
  fields: { table?: string; where?: string } = {},
): Scenario {
  return async ({ placement }) => {
    const broken = makeApp(db, { pool: failingPool(db.pool, pattern, fields) });
    try {
      return await send(broken, placement);
    } finally {
      await broken.services.close();
    }
  };
}

const FIND_COLLECTION = /SELECT id, apikey_hash/;
const API_CALLS = /INTO api_calls|take_api_call/;

function docScenarios(op: 'add' | 'update'): Record<string, Scenario> {
  const E = SEARCH_ERRORS[op];
  return {
    [E.docNull.text]: withDoc(op, null),
    [E.docEmpty.text]: withDoc(op, ''),
    [E.invalidEncoding.text]: ({ placement }) =>
      raw(op, `${key()}&dockey=existing&doc=%7B%FF%7D`, placement),
    [E.docInvalidUtf8.text]: withDoc(
      op,
      docJson({ contents_x: '\ud800' }).replace('"\ud800"', '"\\ud800"'),
    ),
    [E.docJsonParsingFail.text]: withDoc(op, '{"icontents_title": '),
    [E.tooManyFields.text]: withDoc(op, fields36()),
    [E.dockeyNull.text]: ({ placement }) => raw(op, `${key()}&doc=${enc(docJson())}`, placement),
    [E.fieldnameInvalid.text]: withDoc(op, docJson({ title: 'x' })),
    [E.categoryValueInvalid.text]: withDoc(op, docJson({ categories: ['a'] })),
    [E.dateTooBig.text]: withDoc(op, docJson({ score_regdate: 1700000000000 })),
    [E.dateInvalid.text]: withDoc(op, docJson({ score_regdate: 'yesterday' })),
    [E.stringValueInvalid.text]: withDoc(op, docJson({ contents_x: 5 })),
    [E.scoreValueInvalid.text]: withDoc(op, docJson({ score_x: 1.5 })),
    [E.titleEmpty.text]: withDoc(op, docJson({ icontents_title: '' })),
    [E.bodyEmpty.text]: withDoc(op, docJson({ icontents_body: ' ' })),
    [E.thumbnailKeyFail.text]: withDoc(op, docJson({ contents_image: 'not a url' })),
    [E.collectionInfoException.text]: failing(FIND_COLLECTION, (t, p) =>
      raw(op, `${key()}&dockey=existing&doc=${enc(docJson())}`, p, t),
    ),
    [E.userInfoFail.text]: failing(API_CALLS, (t, p) =>
      raw(op, `${key()}&dockey=existing&doc=${enc(docJson())}`, p, t),
    ),
  };
}

const A = SEARCH_ERRORS.add;
const U = SEARCH_ERRORS.update;
const D = SEARCH_ERRORS.delete;
const F = SEARCH_ERRORS.fieldUpdate;
const S = SEARCH_ERRORS.search;
const ST = SEARCH_ERRORS.status;
const C = SEARCH_ERRORS.common;

const scenarios: Record<string, Record<string, Scenario>> = {
  common: {
    [C.apikeyNull.text]: ({ placement }) => raw('add', 'dockey=x', placement),
    [C.apikeyInvalid.text]: ({ placement }) =>
      raw('add', `apikey=${other.apikey}&dockey=x&doc=${enc(docJson())}`, placement),
    [C.cidInvalid.text]: ({ placement }) =>
      raw('add', `${key()}&dockey=x`, placement, app, 'Zz9Zz9Zz'),
    [C.callLimitReached.text]: async ({ placement }) => {
      const limited = await newCollection(app, { max_api_calls: 1 });
      const q = `apikey=${limited.apikey}&q=x`;
      expect((await raw('search', q, placement, app, limited.cid)).status).toBe(200);
      return raw('search', q, placement, app, limited.cid);
    },
    [C.occurException.text]: async () => {
      // nothing a client sends reaches it: an unexpected exception in a route does
      const broken = express();
      broken.get('/boom', () => {
        throw new TypeError('a bug');
      });
      broken.use(errorHandler(createLogger('test', 'silent')));
      return request(broken).get('/boom');
    },
  },
  add: {
    ...docScenarios('add'),
    [A.dockeyInvalid.text]: ({ placement }) =>
      raw('add', `${key()}&dockey=${bigDockey}&doc=${enc(docJson())}`, placement),
    [A.indexMaxReached.text]: async ({ placement }) => {
      const small = await newCollection(app, { max_documents: 1 });
      const api = client(app, small, placement);
      expect((await api.add('one', docJson())).status).toBe(200);
      return api.add('two', docJson(), 0);
    },
    [A.alreadyExists.text]: ({ placement }) =>
      raw('add', `${key()}&dockey=existing&doc=${enc(docJson())}`, placement),
    // an add is one statement: Postgres names the failing part (table, or function in `where`)
    [A.addProcessFail.text]: failing(
      /INSERT INTO search_pending/,
      (t, p) => raw('add', `${key()}&dockey=fresh&doc=${enc(docJson())}`, p, t),
      { table: 'search_pending' },
    ),
    [A.duplicationCheckFail.text]: failing(/INSERT INTO documents/, (t, p) =>
      raw('add', `${key()}&dockey=fresh&doc=${enc(docJson())}`, p, t),
    ),
    [A.databaseException.text]: failing(
      /take_document_slot/,
      (t, p) => raw('add', `${key()}&dockey=fresh&doc=${enc(docJson())}`, p, t),
      { where: 'PL/pgSQL function take_document_slot(text) line 3 at SQL statement' },
    ),
  },
  update: {
    ...docScenarios('update'),
    [U.dockeyInvalid.text]: ({ placement }) =>
      raw('update', `${key()}&dockey=missing&doc=${enc(docJson())}`, placement),
    [U.updateProcessFail.text]: failing(/INSERT INTO search_pending/, (t, p) =>
      raw('update', `${key()}&dockey=existing&doc=${enc(docJson())}`, p, t),
    ),
    [U.databaseException.text]: failing(/UPDATE documents SET doc/, (t, p) =>
      raw('update', `${key()}&dockey=existing&doc=${enc(docJson())}`, p, t),
    ),
  },
  delete: {
    [D.dockeyNull.text]: ({ placement }) => raw('delete', key(), placement),
    [D.dockeyInvalid.text]: ({ placement }) => raw('delete', `${key()}&dockey=missing`, placement),
    [D.deleteProcessFail.text]: failing(/DELETE FROM documents/, (t, p) =>
      raw('delete', `${key()}&dockey=existing`, p, t),
    ),
    [D.collectionInfoException.text]: failing(FIND_COLLECTION, (t, p) =>
      raw('delete', `${key()}&dockey=existing`, p, t),
    ),
    [D.userInfoFail.text]: failing(API_CALLS, (t, p) =>
      raw('delete', `${key()}&dockey=existing`, p, t),
    ),
  },
  fieldUpdate: {
    [F.fieldnameNull.text]: ({ placement }) =>
      raw('fieldUpdate', `${key()}&dockey=existing&fieldvalue=1`, placement),
    [F.fieldnameEmpty.text]: ({ placement }) =>
      raw('fieldUpdate', `${key()}&dockey=existing&fieldname=+&fieldvalue=1`, placement),
    [F.fieldnameInvalid.text]: ({ placement }) =>
      raw('fieldUpdate', `${key()}&dockey=existing&fieldname=view&fieldvalue=1`, placement),
    [F.fieldvalueNull.text]: ({ placement }) =>
      raw('fieldUpdate', `${key()}&dockey=existing&fieldname=score_view`, placement),
    [F.fieldvalueInvalid.text]: ({ placement }) =>
      raw('fieldUpdate', `${key()}&dockey=existing&fieldname=score_view&fieldvalue=1.5`, placement),
    [F.fieldtypeInvalid.text]: ({ placement }) =>
      raw('fieldUpdate', `${key()}&dockey=existing&fieldname=contents_x&fieldvalue=1`, placement),
    [F.dockeyNull.text]: ({ placement }) =>
      raw('fieldUpdate', `${key()}&fieldname=score_view&fieldvalue=1`, placement),
    [F.dockeyEmpty.text]: ({ placement }) =>
      raw('fieldUpdate', `${key()}&dockey=&fieldname=score_view&fieldvalue=1`, placement),
    [F.dockeyInvalid.text]: ({ placement }) =>
      raw('fieldUpdate', `${key()}&dockey=missing&fieldname=score_view&fieldvalue=1`, placement),
    [F.userInfoFail.text]: failing(API_CALLS, (t, p) =>
      raw('fieldUpdate', `${key()}&dockey=existing&fieldname=score_view&fieldvalue=1`, p, t),
    ),
    [F.collectionInfoException.text]: failing(FIND_COLLECTION, (t, p) =>
      raw('fieldUpdate', `${key()}&dockey=existing&fieldname=score_view&fieldvalue=1`, p, t),
    ),
    [F.updateFieldProcessFail.text]: failing(/FOR UPDATE/, (t, p) =>
      raw('fieldUpdate', `${key()}&dockey=existing&fieldname=score_view&fieldvalue=1`, p, t),
    ),
  },
  search: {
    [S.qNull.text]: ({ placement }) => raw('search', key(), placement),
    [S.qTooLong.text]: ({ placement }) =>
      raw('search', `${key()}&q=${'x'.repeat(SEARCH_LIMITS.qMaxBytes + 1)}`, placement),
    [S.qInvalidEncoding.text]: ({ placement }) => raw('search', `${key()}&q=%EC%84`, placement),
    [S.caInvalid.text]: ({ placement }) => raw('search', `${key()}&q=x&ca=1,a`, placement),
    [S.exCaInvalid.text]: ({ placement }) =>
      raw('search', `${key()}&q=x&ex_ca=1,2,3,4,5,6,7,8,9,10,11`, placement),
    [S.startInvalid.text]: ({ placement }) => raw('search', `${key()}&q=x&start=991`, placement),
    [S.lenInvalid.text]: ({ placement }) => raw('search', `${key()}&q=x&len=9`, placement),
    [S.sortInvalid.text]: ({ placement }) => raw('search', `${key()}&q=x&sort=2`, placement),
    [S.startdateInvalid.text]: ({ placement }) =>
      raw('search', `${key()}&q=x&startdate=yesterday`, placement),
    [S.enddateInvalid.text]: ({ placement }) => raw('search', `${key()}&q=x&enddate=-1`, placement),
    [S.returnTypeInvalid.text]: ({ placement }) =>
      placement === 'query'
        ? request(app).get(`/v2/${c.cid}/search/html?${key()}&q=x`)
        : request(app).get(`/v2/${c.cid}/search/html`).type('form').send(`${key()}&q=x`),
    [S.makeResultFail.text]: failing(/search_snapshot/, (t, p) =>
      raw('search', `${key()}&q=title`, p, t),
    ),
    [S.collectionInfoException.text]: failing(FIND_COLLECTION, (t, p) =>
      raw('search', `${key()}&q=title`, p, t),
    ),
  },
  status: {
    [ST.makeStatusResultFail.text]: failing(/SELECT document_count FROM collections/, (t, p) =>
      raw('status', key(), p, t),
    ),
  },
};

test('Every error row of the spec has a scenario here', () => {
  const missing = SEARCH_ERROR_ROWS.filter((row) => !scenarios[row.operation]?.[row.text]).map(
    (row) => `${row.operation}: ${row.text}`,
  );
  expect(missing).toEqual([]);
});

const rows = SEARCH_ERROR_ROWS.map((row): [string, ContractError] => [
  `${row.operation}: ${row.status} ${row.text}`,
  row,
]);

describe.each(['query', 'body'] as Placement[])('parameters in the %s', (placement) => {
  test.each(rows)('When %s, the answer is that row', async (_name, row) => {
    const scenario = scenarios[row.operation]![row.text]!;
    const res = await scenario({ placement });
    expect({ status: res.status, text: res.text }).toEqual({ status: row.status, text: row.text });
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
  });
});

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
