import request from 'supertest';
import { makeApp, useDatabase } from './helpers/harness';
import { ACCEPT_JSON, ACCEPT_XML, getFeed, TYPE_JSON, TYPE_XML, write } from './helpers/requests';
import { READ_TOKEN, WRITE_TOKEN } from './helpers/tokens';

const db = useDatabase();

describe('Accept and versions', () => {
  test('When the vendor 1.0 type is asked for, the answer carries that media type with charset=utf-8 and Vary: Accept', async () => {
    const app = await makeApp(db);
    const xml = await getFeed(app, '/hub/contents', ACCEPT_XML);
    expect(xml.status).toBe(200);
    expect(xml.headers['content-type']).toBe(TYPE_XML);
    expect(xml.headers.vary).toBe('Accept');
    const json = await getFeed(app, '/hub/categories/it/contents', ACCEPT_JSON);
    expect(json.headers['content-type']).toBe(TYPE_JSON);
    expect(json.headers.vary).toBe('Accept');
  });

  test('When a feed reader or curl sends a generic type, RSS or JSON version 1.0 is served', async () => {
    const app = await makeApp(db);
    const cases: [string, string][] = [
      ['application/rss+xml', TYPE_XML],
      ['application/xml', TYPE_XML],
      ['text/xml', TYPE_XML],
      ['*/*', TYPE_XML],
      ['application/json', TYPE_JSON],
      ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', TYPE_XML],
      ['application/vnd.vendor.resource-1.0+json', TYPE_JSON],
    ];
    for (const [accept, type] of cases) {
      const res = await getFeed(app, '/hub/contents', accept);
      expect([accept, res.status, res.headers['content-type']]).toEqual([accept, 200, type]);
    }
  });

  test('When another version (resource-2.0) is asked for, GET /hub/contents answers 404', async () => {
    const app = await makeApp(db);
    for (const accept of [
      'application/vnd.vendor.resource-2.0+xml;charset=utf-8',
      'application/vnd.vendor.resource-2.0+json',
    ]) {
      const res = await getFeed(app, '/hub/contents', accept);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        error: {
          status: 404,
          message: 'the API does not exist, or the requested version is not supported',
        },
      });
    }
  });

  test('When the Accept header is missing, GET /hub/contents answers 422 in JSON', async () => {
    const app = await makeApp(db);
    const res = await getFeed(app, '/hub/contents', undefined).unset('Accept');
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toBe('application/json;charset=utf-8');
    expect(res.body.error).toEqual({
      status: 422,
      message: 'invalid parameter or missing required value: the Accept header is required',
    });
  });

  test('When the Accept header names nothing usable, GET /hub/contents answers 422', async () => {
    const app = await makeApp(db);
    for (const accept of [
      'text/html',
      'application/vnd.other.resource-1.0+json',
      'application/vnd.vendor.resource-1.0+xml;charset=iso-8859-1',
      'garbage',
    ]) {
      const res = await getFeed(app, '/hub/contents', accept);
      expect([accept, res.status]).toEqual([accept, 422]);
      expect(res.body.error.message).toMatch(
        /^invalid parameter or missing required value: Accept names no supported media type/,
      );
    }
  });

  test('When FEED_VENDOR is set, the vendor token in the media type follows it', async () => {
    const app = await makeApp(db, { FEED_VENDOR: 'acme' });
    const res = await getFeed(
      app,
      '/hub/contents',
      'application/vnd.acme.resource-1.0+json;charset=utf-8',
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(
      'application/vnd.acme.resource-1.0+json;charset=utf-8',
    );
    expect((await getFeed(app, '/hub/contents', ACCEPT_JSON)).status).toBe(422);
  });

  test('When the token is bad and the Accept is bad too, authentication is checked first (401)', async () => {
    const app = await makeApp(db);
    expect((await getFeed(app, '/hub/contents', 'text/html', 'bad')).status).toBe(401);
    expect((await getFeed(app, '/hub/categories/nope/contents', 'text/html', 'bad')).status).toBe(
      401,
    );
  });
});

describe('paths and methods', () => {
  test('When the path does not exist, the answer is 404 in the negotiated format', async () => {
    const app = await makeApp(db);
    for (const path of [
      '/hub',
      '/hub/content',
      '/hub/categories/it',
      '/hub/categories/it/contents/x',
      '/HUB/CONTENTS',
      '/index.html',
      '/docs/assets/index.html',
    ]) {
      const res = await getFeed(app, path);
      expect([path, res.status]).toEqual([path, 404]);
      expect(res.body.error.status).toBe(404);
    }
    const xml = await getFeed(app, '/nope', ACCEPT_XML);
    expect(xml.status).toBe(404);
    expect(xml.headers['content-type']).toBe('application/xml;charset=utf-8');
    expect(xml.text).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><error><status>404</status><message>the API does not exist, or the requested version is not supported</message></error>',
    );
  });

  test('When a read path gets another method, it answers 405 with an Allow header', async () => {
    const app = await makeApp(db);
    const cases: [string, string, string][] = [
      ['post', '/hub/categories/it/contents', 'GET, HEAD'],
      ['put', '/hub/categories/it/contents', 'GET, HEAD'],
      ['delete', '/hub/categories/it/contents', 'GET, HEAD'],
      ['patch', '/hub/contents', 'GET, HEAD, POST'],
      ['put', '/hub/contents', 'GET, HEAD, POST'],
      ['delete', '/hub/contents', 'GET, HEAD, POST'],
      ['options', '/hub/contents', 'GET, HEAD, POST'],
      ['get', '/hub/contents/1', 'PUT, DELETE'],
      ['post', '/hub/contents/1', 'PUT, DELETE'],
    ];
    for (const [method, path, allow] of cases) {
      const agent = request(app) as unknown as Record<string, (path: string) => request.Test>;
      const res = await agent[method]!(path)
        .set('Accept', ACCEPT_JSON)
        .set('Authorization', `Bearer ${WRITE_TOKEN}`);
      expect([method, path, res.status, res.headers.allow]).toEqual([method, path, 405, allow]);
      if (method !== 'options')
        expect(res.body).toEqual({ error: { status: 405, message: 'method not allowed' } });
    }
  });

  test('When a path has broken percent-encoding, the answer is a 4xx, never a 500', async () => {
    const app = await makeApp(db);
    for (const path of [
      '/hub/categories/%E0%A4%A/contents',
      '/hub/categories/%/contents',
      '/hub/%zz',
      '/%',
    ]) {
      const res = await getFeed(app, path);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body.error.status).toBe(res.status);
    }
    const put = await write(app, 'put', '/hub/contents/%E0%A4%A', '{}');
    expect(put.status).toBeLessThan(500);
  });

  test('When an error is answered, it is not cacheable and names no server internals', async () => {
    const app = await makeApp(db);
    const res = await getFeed(app, '/hub/categories/x/contents', ACCEPT_JSON, READ_TOKEN);
    expect(res.status).toBe(422);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-request-id']).toBeTruthy();
  });
});
