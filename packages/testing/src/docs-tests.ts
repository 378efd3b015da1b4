/// <reference types="jest" />
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import request from 'supertest';
import { chromiumMissing } from './chromium';
import { documentedOperations, readDocsPagesOf } from './docs-page';
import { openApiChecker } from './openapi';

/** The Content-Security-Policy of the docs pages (service-kit's docs router). */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src *; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export interface DocsTestsOptions {
  /** the service's name, as / and the page title give it */
  service: string;
  openapi: Record<string, unknown>;
  /** the app to ask (called in each test) */
  app: () => http.RequestListener | Promise<http.RequestListener>;
  /** how a file that is no asset is asked for, and the exact text of its 404 */
  notFound: { accept?: string; text: string };
}

/**
 * The tests of / and /docs every service has (service-kit's docs router), at the top level of
 * the calling test file: the links at /, the Swagger UI page, its assets, the OpenAPI document
 * and, where Chromium is installed, the page as a browser renders it.
 */
export function docsPageTests({ service, openapi, app, notFound }: DocsTestsOptions): void {
  const swaggerUi = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  const chromiumSkip = chromiumMissing();
  const browserTest = chromiumSkip ? test.skip : test;
  if (chromiumSkip) console.warn(`docs page browser test${chromiumSkip}`);

  test('When / is asked for anything but HTML, it answers JSON links to /docs and /openapi.json', async () => {
    const handler = await app();
    for (const accept of [undefined, 'application/json', '*/*']) {
      const r = request(handler).get('/');
      const res = await (accept ? r.set('Accept', accept) : r);
      expect([res.status, res.headers['content-type'], res.headers.vary, res.text]).toEqual([
        200,
        'application/json; charset=utf-8',
        'Accept',
        `{"service":"${service}","links":{"docs":"/docs","openapi":"/openapi.json"}}`,
      ]);
    }
  });

  test('When / is opened by a browser (text/html preferred), it answers a page linking to docs and openapi.json', async () => {
    const res = await request(await app())
      .get('/')
      .set('Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8');
    expect([res.status, res.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
    expect(res.text).toContain('<a href="docs">API documentation</a> (/docs)');
    expect(res.text).toContain('<a href="openapi.json">OpenAPI document</a> (/openapi.json)');
  });

  test('When /docs is asked for, it answers the Swagger UI page with assets relative to the path and a same-origin CSP', async () => {
    const handler = await app();
    for (const [url, root] of [
      ['/docs', './'],
      ['/docs/', '../'],
      ['/docs?x=1', './'],
    ] as const) {
      const res = await request(handler).get(url);
      expect([url, res.status, res.headers['content-type']]).toEqual([
        url,
        200,
        'text/html; charset=utf-8',
      ]);
      expect(res.headers['content-security-policy']).toBe(DOCS_CSP);
      expect(res.text).toContain(`<title>${service} API</title>`);
      expect(res.text).toContain(
        `<link rel="stylesheet" href="${root}docs/assets/swagger-ui.css">`,
      );
      expect(res.text).toContain(`<script src="${root}docs/assets/swagger-ui-bundle.js"></script>`);
      expect(res.text).toContain(`<div id="swagger-ui" data-openapi-url="${root}openapi.json">`);
    }
  });

  test('When the docs page loads its assets, they are the files of the installed swagger-ui-dist; other files of the package are 404', async () => {
    const handler = await app();
    for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png']) {
      const res = await request(handler).get(`/docs/assets/${file}`).buffer(true);
      expect([file, res.status, res.headers['cache-control']]).toEqual([
        file,
        200,
        'public, max-age=86400',
      ]);
      const body = Buffer.isBuffer(res.body) ? res.body : Buffer.from(res.text);
      expect(body.equals(fs.readFileSync(path.join(swaggerUi, file)))).toBe(true);
    }
    const init = await request(handler).get('/docs/assets/docs-init.js');
    expect([init.status, init.headers['content-type']]).toEqual([
      200,
      'text/javascript; charset=utf-8',
    ]);
    expect(init.text).toContain('validatorUrl: null');
    for (const file of ['index.html', 'swagger-initializer.js', 'package.json', 'nope.js']) {
      const r = request(handler).get(`/docs/assets/${file}`);
      const res = await (notFound.accept ? r.set('Accept', notFound.accept) : r);
      expect([file, res.status, res.text]).toEqual([file, 404, notFound.text]);
    }
  });

  test('When / and /docs answer, the responses match the OpenAPI document', async () => {
    const handler = await app();
    const check = openApiChecker(openapi);
    check('GET', '/', await request(handler).get('/'));
    check('GET', '/', await request(handler).get('/').set('Accept', 'text/html'));
    check('GET', '/docs', await request(handler).get('/docs'));
  });

  browserTest(
    `When /docs is opened in a browser, every operation of the OpenAPI document is listed${chromiumSkip ?? ''}`,
    async () => {
      for (const { url, page } of await readDocsPagesOf(await app(), ['/docs', '/docs/'])) {
        expect([url, [...page.operations].sort()]).toEqual([
          url,
          documentedOperations(openapi).sort(),
        ]);
        expect([url, page.foreignRequests, page.errors]).toEqual([url, [], []]);
      }
    },
  );
}
