import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import {
  chromiumMissing,
  documentedOperations,
  openApiChecker,
  readDocsPagesOf,
  type TestDatabase,
} from '@hub/testing';
import type { SearchApp } from '../src/app';
import { createSearchTestDatabase, makeApp } from './helpers/harness';

const OPENAPI = require('../openapi/openapi.json') as Record<string, unknown>;

/** The operations are mounted under the paths of SEARCH_BASE_URL and SEARCH_URL; / and /docs stay at the root. */
const SWAGGER_UI = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const CHROMIUM_SKIP = chromiumMissing();
const browserTest = CHROMIUM_SKIP ? test.skip : test;
if (CHROMIUM_SKIP) console.warn(`docs page browser test${CHROMIUM_SKIP}`);

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src *; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

let db: TestDatabase;
let app: SearchApp;
beforeAll(async () => {
  db = await createSearchTestDatabase();
  app = makeApp(db, {
    env: {
      SEARCH_BASE_URL: 'https://api.example.com/index',
      SEARCH_URL: 'https://api.example.com/search',
    },
  });
});
afterAll(async () => {
  await app.services.close();
  await db.drop();
});

test('When / is asked for anything but HTML, it answers JSON links to /docs and /openapi.json', async () => {
  for (const accept of [undefined, 'application/json', '*/*']) {
    const r = request(app).get('/');
    const res = await (accept ? r.set('Accept', accept) : r);
    expect([res.status, res.headers['content-type'], res.headers.vary, res.text]).toEqual([
      200,
      'application/json; charset=utf-8',
      'Accept',
      '{"service":"search-service","links":{"docs":"/docs","openapi":"/openapi.json"}}',
    ]);
  }
});

test('When / is opened by a browser (text/html preferred), it answers a page linking to docs and openapi.json', async () => {
  const res = await request(app)
    .get('/')
    .set('Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8');
  expect([res.status, res.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
  expect(res.text).toContain('<a href="docs">API documentation</a> (/docs)');
  expect(res.text).toContain('<a href="openapi.json">OpenAPI document</a> (/openapi.json)');
});

test('When /docs is asked for, it answers the Swagger UI page with assets relative to the path and a same-origin CSP', async () => {
  for (const [url, root] of [
    ['/docs', './'],
    ['/docs/', '../'],
    ['/docs?x=1', './'],
  ] as const) {
    const res = await request(app).get(url);
    expect([url, res.status, res.headers['content-type']]).toEqual([
      url,
      200,
      'text/html; charset=utf-8',
    ]);
    expect(res.headers['content-security-policy']).toBe(CSP);
    expect(res.text).toContain(`<title>search-service API</title>`);
    expect(res.text).toContain(`<link rel="stylesheet" href="${root}docs/assets/swagger-ui.css">`);
    expect(res.text).toContain(`<script src="${root}docs/assets/swagger-ui-bundle.js"></script>`);
    expect(res.text).toContain(`<div id="swagger-ui" data-openapi-url="${root}openapi.json">`);
  }
});

test('When the operations are mounted at the root (SEARCH_BASE_URL without a path), / and /docs still answer', async () => {
  const atRoot = makeApp(db);
  try {
    expect((await request(atRoot).get('/')).text).toBe(
      '{"service":"search-service","links":{"docs":"/docs","openapi":"/openapi.json"}}',
    );
    const docs = await request(atRoot).get('/docs');
    expect([docs.status, docs.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
    expect((await request(atRoot).get('/docs/assets/swagger-ui.css')).status).toBe(200);
  } finally {
    await atRoot.services.close();
  }
});

test('When the docs page loads its assets, they are the files of the installed swagger-ui-dist; other files of the package are 404', async () => {
  for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png']) {
    const res = await request(app).get(`/docs/assets/${file}`).buffer(true);
    expect([file, res.status, res.headers['cache-control']]).toEqual([
      file,
      200,
      'public, max-age=86400',
    ]);
    const body = Buffer.isBuffer(res.body) ? res.body : Buffer.from(res.text);
    expect(body.equals(fs.readFileSync(path.join(SWAGGER_UI, file)))).toBe(true);
  }
  const init = await request(app).get('/docs/assets/docs-init.js');
  expect([init.status, init.headers['content-type']]).toEqual([
    200,
    'text/javascript; charset=utf-8',
  ]);
  expect(init.text).toContain('validatorUrl: null');
  for (const file of ['index.html', 'swagger-initializer.js', 'package.json', 'nope.js']) {
    const res = await request(app).get(`/docs/assets/${file}`);
    expect([file, res.status, res.text]).toEqual([file, 404, 'not found']);
  }
});

test('When / and /docs answer, the responses match the OpenAPI document', async () => {
  const check = openApiChecker(OPENAPI);
  check('GET', '/', await request(app).get('/'));
  check('GET', '/', await request(app).get('/').set('Accept', 'text/html'));
  check('GET', '/docs', await request(app).get('/docs'));
});

browserTest(
  `When /docs is opened in a browser, every operation of the OpenAPI document is listed${CHROMIUM_SKIP ?? ''}`,
  async () => {
    for (const { url, page } of await readDocsPagesOf(app, ['/docs', '/docs/'])) {
      expect([url, [...page.operations].sort()]).toEqual([
        url,
        documentedOperations(OPENAPI).sort(),
      ]);
      expect([url, page.foreignRequests, page.errors]).toEqual([url, [], []]);
    }
  },
);
