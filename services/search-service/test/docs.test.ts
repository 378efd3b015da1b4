import request from 'supertest';
import { docsPageTests } from '@hub/testing';
import type { SearchApp } from '../src/app';
import { makeApp, useSearchApp } from './helpers/harness';

/** The operations are mounted under the paths of SEARCH_BASE_URL and SEARCH_URL; / and /docs stay at the root. */
let app: SearchApp;
const db = useSearchApp((t) => ({ app } = t), {
  env: {
    SEARCH_BASE_URL: 'https://api.example.com/index',
    SEARCH_URL: 'https://api.example.com/search',
  },
});

docsPageTests({
  service: 'search-service',
  openapi: require('../openapi/openapi.json') as Record<string, unknown>,
  app: () => app,
  notFound: { text: 'not found' },
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
