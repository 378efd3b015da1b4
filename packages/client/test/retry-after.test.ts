import { parseRetryAfter } from '../src/retry-after';

const NOW = Date.UTC(1994, 10, 6, 8, 49, 0); // Sun, 06 Nov 1994 08:49:00 GMT

describe('parseRetryAfter', () => {
  it.each([
    ['0', 0],
    ['1', 1],
    [' 120 ', 120],
    ['007', 7],
  ])('Delay-seconds %p are that many seconds', (header, seconds) => {
    expect(parseRetryAfter(header, NOW)).toBe(seconds);
  });

  it.each([
    ['Sun, 06 Nov 1994 08:49:37 GMT', 'IMF-fixdate'],
    ['Sunday, 06-Nov-94 08:49:37 GMT', 'RFC 850'],
    ['Sun Nov  6 08:49:37 1994', 'asctime'],
  ])('An HTTP-date %p (%s) is the seconds from now to it, rounded up', (header) => {
    expect(parseRetryAfter(header, NOW)).toBe(37);
    expect(parseRetryAfter(header, NOW + 500)).toBe(37);
    expect(parseRetryAfter(header, NOW + 1_000)).toBe(36);
  });

  it('An HTTP-date in the past is 0', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:48:00 GMT', NOW)).toBe(0);
  });

  it.each([
    [null],
    [undefined],
    [''],
    ['soon'],
    ['-1'],
    ['1.5'],
    ['1e3'],
    ['Sun, 06 Nov 1994 08:49:37'], // no GMT
    ['Sun, 31 Feb 1994 08:49:37 GMT'], // no such day
    ['Sun, 06 Nov 1994 25:49:37 GMT'], // no such hour
    ['2026-11-26T10:00:00Z'], // ISO 8601 is no HTTP-date
  ])('A header that is neither form (%p) is undefined', (header) => {
    expect(parseRetryAfter(header, NOW)).toBeUndefined();
  });
});
