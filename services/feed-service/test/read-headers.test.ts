import { readHeaders } from '../src/http/read-headers';

/** The fast path's reading of rawHeaders (the component tests compare it with Express). */

test('When the read headers come in any spelling, each is found by its name case-insensitively', () => {
  expect(
    readHeaders([
      'Host',
      'x',
      'AUTHORIZATION',
      'Bearer t',
      'accept',
      'application/json',
      'X-Request-Id',
      'r1',
      'If-None-Match',
      'W/"e"',
      'if-modified-since',
      'Mon, 23 Nov 2026 05:26:57 GMT',
      'User-Agent',
      'newsboat',
    ]),
  ).toEqual({
    authorization: 'Bearer t',
    authentication: false,
    accept: 'application/json',
    requestId: 'r1',
    ifNoneMatch: 'W/"e"',
    ifModifiedSince: 'Mon, 23 Nov 2026 05:26:57 GMT',
  });
});

test('When the Authentication spelling is sent, the reader says so (findToken judges it)', () => {
  expect(readHeaders(['Authentication', 'Bearer t'])).toMatchObject({
    authorization: undefined,
    authentication: true,
  });
});

test.each([
  'Authorization',
  'Authentication',
  'Accept',
  'X-Request-Id',
  'If-None-Match',
  'If-Modified-Since',
])('When %s is sent twice, the reader gives up (Express reads the request)', (name) => {
  expect(readHeaders([name, 'a', 'Host', 'x', name.toLowerCase(), 'b'])).toBeNull();
});

test('When other headers repeat, the read headers are still read', () => {
  expect(readHeaders(['Cookie', 'a', 'Cookie', 'b', 'Accept', 'x'])).toMatchObject({ accept: 'x' });
});
