import express from 'express';
import request from 'supertest';
import { openApiRouter } from '../src/openapi-router';
import { serviceAddress } from '../src/service-address';

const DOCUMENT = `{
  "openapi": "3.1.0",
  "servers": [{ "url": "http://127.0.0.1:8081", "description": "local" }],
  "paths": {}
}`;

function app(address: { baseUrl: string; given: boolean }, trustProxy = false) {
  const a = express();
  if (trustProxy) a.set('trust proxy', true);
  a.use(openApiRouter(DOCUMENT, { server: serviceAddress(address) }));
  return a;
}
const local = app({ baseUrl: 'http://127.0.0.1:8081', given: false });

async function servers(handler: express.Express, headers: Record<string, string> = {}) {
  const res = await request(handler).get('/openapi.json').set(headers);
  expect(res.status).toBe(200);
  return res.body.servers as unknown;
}

test('Without a server option, /openapi.json is the given bytes', async () => {
  const res = await request(express().use(openApiRouter(DOCUMENT))).get('/openapi.json');
  expect([res.headers['content-type'], res.text]).toEqual([
    'application/json;charset=utf-8',
    DOCUMENT,
  ]);
});

test('When the base URL is given, servers names it exactly (path prefix kept), whatever the Host', async () => {
  const given = app({ baseUrl: 'https://api.example.com/search', given: true });
  const res = await request(given).get('/openapi.json').set('Host', 'other.example:1');
  expect(JSON.parse(res.text)).toEqual({
    openapi: '3.1.0',
    servers: [{ url: 'https://api.example.com/search', description: 'local' }],
    paths: {},
  });
  expect(res.headers['cache-control']).toBe('no-cache');
  expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
});

test('When no base URL is given, servers is the request origin: valid hosts are named, lower-cased', async () => {
  for (const [host, url] of [
    ['127.0.0.1:9999', 'http://127.0.0.1:9999'],
    ['Search.Example.COM', 'http://search.example.com'],
    ['search_service:8081', 'http://search_service:8081'],
    ['[::1]:8081', 'http://[::1]:8081'],
    ['[2001:db8::1]', 'http://[2001:db8::1]'],
  ]) {
    expect([host, await servers(local, { Host: host! })]).toEqual([
      host,
      [{ url, description: 'local' }],
    ]);
  }
});

test('When the Host is not host[:port], the configured default is named instead', async () => {
  for (const host of [
    'evil"},{"url":"https://evil.example',
    'a b',
    'example.com/path',
    'user@example.com',
    'example.com:99999',
    'example.com:',
    '-bad.example',
    '[::1',
    '[not:ipv6:zz]',
    'x'.repeat(300),
  ]) {
    expect([host, await servers(local, { Host: host })]).toEqual([
      host,
      [{ url: 'http://127.0.0.1:8081', description: 'local' }],
    ]);
  }
});

test('When the app does not trust proxies, X-Forwarded-Proto and X-Forwarded-Host are ignored', async () => {
  const forwarded = {
    Host: 'inner:8081',
    'X-Forwarded-Proto': 'https',
    'X-Forwarded-Host': 'api.example.com',
  };
  expect(await servers(local, forwarded)).toEqual([
    { url: 'http://inner:8081', description: 'local' },
  ]);
  const trusting = app({ baseUrl: 'http://127.0.0.1:8081', given: false }, true);
  expect(await servers(trusting, forwarded)).toEqual([
    { url: 'https://api.example.com', description: 'local' },
  ]);
  expect(await servers(trusting, { ...forwarded, 'X-Forwarded-Proto': 'gopher' })).toEqual([
    { url: 'http://127.0.0.1:8081', description: 'local' },
  ]);
});

test('When many hosts ask, each answer names its own host, also once older documents were dropped', async () => {
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < 40; i++) {
      const host = `h${i}.example:${8000 + i}`;
      expect(await servers(local, { Host: host })).toEqual([
        { url: `http://${host}`, description: 'local' },
      ]);
    }
  }
});
