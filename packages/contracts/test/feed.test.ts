import {
  defaultItemAuthor,
  FEED_CATEGORIES,
  FEED_CATEGORY_CODES,
  FEED_ERRORS,
  FEED_MAX_ITEMS,
  FEED_SPEC_ERROR_STATUSES,
  feedMediaType,
  isFeedCategory,
  parseFeedAccept,
} from '../src';

const V = 'vendor';
const vendorType = (format: string, version = '1.0', params = ';charset=utf-8') =>
  `application/vnd.${V}.resource-${version}+${format}${params}`;

describe('feed categories', () => {
  it('has the six codes of the spec', () => {
    expect(FEED_CATEGORY_CODES).toEqual(['life', 'culture', 'trip', 'it', 'food', 'biz']);
    expect(FEED_CATEGORIES.find((c) => c.code === 'trip')?.meaning).toBe('travel');
  });

  it.each(['life', 'culture', 'trip', 'it', 'food', 'biz'])('%s is a category code', (code) => {
    expect(isFeedCategory(code)).toBe(true);
  });

  it.each(['LIFE', 'travel', 'sports', '', ' it', undefined, 1])(
    '%p is not a category code',
    (code) => {
      expect(isFeedCategory(code)).toBe(false);
    },
  );
});

describe('feed errors and limits', () => {
  it('FEED_ERRORS has the statuses of the spec: 401, 404, 422, 500, 503', () => {
    const statuses = new Set<number>(Object.values(FEED_ERRORS).map((e) => e.status));
    for (const status of [401, 404, 422, 500, 503]) expect(statuses.has(status)).toBe(true);
    expect(FEED_SPEC_ERROR_STATUSES).toEqual([401, 404, 422, 500, 503]);
  });

  it('answers at most 100 items', () => {
    expect(FEED_MAX_ITEMS).toBe(100);
  });

  it('builds the item author default', () => {
    expect(defaultItemAuthor('a@b.c', 'Hub')).toBe('a@b.c (Hub)');
  });

  it('builds the vendor media type of the spec', () => {
    expect(feedMediaType(V, 'xml')).toBe('application/vnd.vendor.resource-1.0+xml;charset=utf-8');
    expect(feedMediaType(V, 'json')).toBe('application/vnd.vendor.resource-1.0+json;charset=utf-8');
  });
});

describe('parseFeedAccept', () => {
  it.each([
    ['the vendor xml type', vendorType('xml'), 'xml'],
    ['the vendor json type', vendorType('json'), 'json'],
    ['the vendor type without charset', vendorType('json', '1.0', ''), 'json'],
    ['the vendor type with charset=UTF-8', vendorType('xml', '1.0', '; charset=UTF-8'), 'xml'],
    ['the vendor type in upper case', vendorType('json').toUpperCase(), 'json'],
    ['*/*', '*/*', 'xml'],
    ['application/*', 'application/*', 'xml'],
    ['application/json', 'application/json', 'json'],
    ['application/xml', 'application/xml', 'xml'],
    ['text/xml', 'text/xml', 'xml'],
    ['application/rss+xml', 'application/rss+xml', 'xml'],
    ['text/html then */*', 'text/html, */*;q=0.8', 'xml'],
  ])('When Accept is %s, the answer is %s version 1.0', (_what, header, format) => {
    expect(parseFeedAccept(header, V)).toEqual({ kind: 'ok', format, version: '1.0' });
  });

  it.each([
    [
      'json preferred by q',
      `${vendorType('xml', '1.0', ';q=0.5')}, ${vendorType('json', '1.0', ';q=0.9')}`,
      'json',
    ],
    [
      'xml preferred by q',
      `${vendorType('json', '1.0', ';q=0.1')}, ${vendorType('xml', '1.0', '')}`,
      'xml',
    ],
    [
      'equal q: the first listed',
      `${vendorType('json', '1.0', '')}, ${vendorType('xml', '1.0', '')}`,
      'json',
    ],
    ['generic json over */* by q', 'application/json;q=0.9, */*;q=0.1', 'json'],
    [
      'q=0 excludes a type',
      `${vendorType('json', '1.0', ';q=0')}, ${vendorType('xml', '1.0', '')}`,
      'xml',
    ],
    [
      'the vendor type wins over a generic one',
      `application/json, ${vendorType('xml', '1.0', ';q=0.5')}`,
      'xml',
    ],
  ])('q-values: %s', (_what, header, format) => {
    expect(parseFeedAccept(header, V)).toMatchObject({ kind: 'ok', format });
  });

  it.each([undefined, '', '   '])('When Accept is %p, the header is missing', (header) => {
    expect(parseFeedAccept(header, V)).toEqual({ kind: 'missing' });
  });

  it.each([
    ['resource-2.0 xml', vendorType('xml', '2.0')],
    ['resource-2.0 json', vendorType('json', '2.0')],
    ['resource-0.9 next to */*', `${vendorType('json', '0.9')}, */*`],
  ])('When Accept names %s, the version is unsupported (404)', (_what, header) => {
    expect(parseFeedAccept(header, V)).toMatchObject({ kind: 'unsupported-version' });
  });

  it('reports the unsupported version asked for', () => {
    expect(parseFeedAccept(vendorType('json', '2.0'), V)).toEqual({
      kind: 'unsupported-version',
      version: '2.0',
    });
  });

  it('prefers a supported vendor version over an unsupported one', () => {
    const header = `${vendorType('json', '2.0')}, ${vendorType('xml', '1.0')}`;
    expect(parseFeedAccept(header, V)).toEqual({ kind: 'ok', format: 'xml', version: '1.0' });
  });

  it.each([
    ['text/html', 'text/html'],
    ['image/png', 'image/png'],
    ['another vendor', 'application/vnd.other.resource-1.0+json'],
    ['an unknown suffix', 'application/vnd.vendor.resource-1.0+yaml'],
    ['application/json with charset=iso-8859-1', 'application/json;charset=iso-8859-1'],
    ['the vendor type with charset=iso-8859-1', vendorType('xml', '1.0', ';charset=iso-8859-1')],
    ['only q=0 ranges', 'application/json;q=0'],
    ['garbage', ';;;'],
  ])('When Accept is %s, nothing usable is asked (422)', (_what, header) => {
    expect(parseFeedAccept(header, V)).toEqual({ kind: 'unusable' });
  });

  it('uses the configured vendor token', () => {
    const header = 'application/vnd.acme.resource-1.0+json';
    expect(parseFeedAccept(header, 'acme')).toMatchObject({ kind: 'ok', format: 'json' });
    expect(parseFeedAccept(header, V)).toEqual({ kind: 'unusable' });
  });
});
