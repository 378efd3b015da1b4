import express from 'express';
import request from 'supertest';
import { SEARCH_ERRORS, SEARCH_LIMITS } from '@hub/contracts';
import { createLogger } from '@hub/service-kit';
import { errorHandler } from '../../src/http/errors';
import {
  API_CALLS,
  app,
  bigDockey,
  c,
  enc,
  failing,
  fields36,
  FIND_COLLECTION,
  key,
  other,
  raw,
  withDoc,
  type Scenario,
} from './error-requests';
import { newCollection } from './harness';
import { client, docJson } from './requests';

/**
 * A scenario for every row of every error table of the spec (SEARCH_ERROR_ROWS), each breaking
 * exactly its rule, by operation and row text; run against the app and collections of
 * useErrorScenarios (error-requests.ts).
 */

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

export const scenarios: Record<string, Record<string, Scenario>> = {
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
    [ST.makeStatusResultFail.text]: failing(/SELECT collection_document_count\(\$1\)/, (t, p) =>
      raw('status', key(), p, t),
    ),
  },
};
