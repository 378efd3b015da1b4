import request from 'supertest';
import { SEARCH_LIMITS } from '@hub/contracts';
import type { TestDatabase } from '@hub/testing';
import type { SearchApp } from '../../src/app';
import { failingPool, makeApp, newCollection, useSearchApp } from './harness';
import { client, docJson, type Placement, type TestCollection } from './requests';

/**
 * What the error scenarios (error-scenarios.ts) are made of: the app and collections they run
 * against (useErrorScenarios), `raw`, one request of an operation with encoded parameters, and
 * scenarios that break one doc rule or meet a failing database.
 */

export let app: SearchApp;
export let c: TestCollection;
export let other: TestCollection;
let db: TestDatabase;

export interface ErrorScenarioTest {
  app: SearchApp;
  /** a collection holding one document, "existing" */
  c: TestCollection;
  /** another collection */
  other: TestCollection;
}

/**
 * The test file's app, its collection c holding the document "existing", and another
 * collection, made before its tests and handed to `opened`; the scenarios run against them.
 */
export function useErrorScenarios(opened: (t: ErrorScenarioTest) => void = () => {}): void {
  db = useSearchApp((t) => ({ app, c } = t), { collection: true });
  beforeAll(async () => {
    other = await newCollection(app);
    const res = await client(app, c).add('existing', docJson());
    expect(res.status).toBe(200);
    opened({ app, c, other });
  });
}

export interface Ctx {
  placement: Placement;
}
export type Scenario = (ctx: Ctx) => Promise<request.Response>;

const VALID_KEY_OF = () => c.apikey;
export const bigDockey = 'k'.repeat(SEARCH_LIMITS.dockeyMaxBytes + 1);
export const fields36 = () => {
  const extra: Record<string, string> = {};
  for (let i = 0; i < SEARCH_LIMITS.maxFields - 2; i++) extra[`contents_f${i}`] = 'x';
  return docJson(extra);
};

/** One request of an operation with raw (already encoded) extra parameters. */
export function raw(
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

export const key = () => `apikey=${VALID_KEY_OF()}`;
export const enc = encodeURIComponent;

/** A request that breaks one doc rule, for add (new dockey) or update (existing dockey). */
export function withDoc(op: 'add' | 'update', doc: string | null): Scenario {
  return ({ placement }) => {
    const dockey = op === 'add' ? `new-${Math.random()}` : 'existing';
    const docPart = doc === null ? '' : `&doc=${enc(doc)}`;
    return raw(op, `${key()}&dockey=${enc(dockey)}${docPart}`, placement);
  };
}

/** A request made through an app whose database fails for statements matching `pattern`. */
export function failing(
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

export const FIND_COLLECTION = /SELECT id, apikey_hash/;
export const API_CALLS = /INTO api_calls|take_api_call/;
