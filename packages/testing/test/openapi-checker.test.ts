import { openApiChecker } from '../src/openapi';

const doc = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/v2/{cid}/status/{format}': {
      get: {
        responses: {
          '200': {
            content: { 'application/json': { schema: { $ref: '#/components/schemas/S' } } },
          },
          '400': { $ref: '#/components/responses/E' },
        },
      },
    },
  },
  components: {
    schemas: {
      S: {
        type: 'object',
        required: ['search_status'],
        properties: { search_status: { type: 'string' } },
      },
    },
    responses: {
      E: { description: 'e', content: { 'text/plain': { schema: { type: 'string' } } } },
    },
  },
};
const check = openApiChecker(doc);
const json = { 'content-type': 'application/json; charset=utf-8' };

test('When the body matches the documented schema, the checker accepts it', () => {
  expect(() =>
    check('GET', '/v2/abc/status/json', {
      status: 200,
      headers: json,
      body: { search_status: 'true' },
    }),
  ).not.toThrow();
});

test('When the body breaks the schema, the checker names the problem', () => {
  expect(() =>
    check('GET', '/v2/abc/status/json', {
      status: 200,
      headers: json,
      body: { search_status: true },
    }),
  ).toThrow(/does not match the schema/);
});

test('When the status, path, method or content type is not documented, the checker refuses', () => {
  expect(() =>
    check('GET', '/v2/abc/status/json', { status: 500, headers: json, body: {} }),
  ).toThrow(/status 500 not documented/);
  expect(() => check('GET', '/nope', { status: 200, headers: json, body: {} })).toThrow(
    /path not documented/,
  );
  expect(() =>
    check('POST', '/v2/a/status/json', { status: 200, headers: json, body: {} }),
  ).toThrow(/method not documented/);
  expect(() => check('GET', '/v2/a/status/json', { status: 400, headers: json, body: {} })).toThrow(
    /content type/,
  );
  expect(() =>
    check('GET', '/v2/a/status/json', {
      status: 400,
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    }),
  ).not.toThrow();
});
