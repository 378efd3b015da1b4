import {
  checkUnixTime,
  hasBadJsonEscape,
  hasNulOrLoneSurrogate,
  isApiKeyFormat,
  isCollectionId,
  isInt64Text,
  parseDigits,
  parseScoreValue,
  parseThumbnailSize,
  SEARCH_LIMITS,
  utf8ByteLength,
} from '../src';
import { testCalls } from './helpers';

describe('SEARCH_LIMITS', () => {
  it('has the values of the spec Limits table', () => {
    expect(SEARCH_LIMITS).toMatchObject({
      maxFields: 35,
      dockeyMaxBytes: 1024,
      qMaxBytes: 1024,
      startMin: 0,
      startMax: 990,
      fixedLenAtStartMax: 10,
      lenMin: 10,
      lenMax: 100,
      lenDefault: 10,
      exCaMaxEntries: 10,
      collectionIdLength: 8,
      apiKeyLength: 32,
      defaultThumbnailSize: '130X130',
      regdateMax: 253402300799,
      categoryMax: 2147483647,
    });
  });

  it('regdateMax is 9999-12-31T23:59:59Z in seconds', () => {
    expect(new Date(SEARCH_LIMITS.regdateMax * 1000).toISOString()).toBe(
      '9999-12-31T23:59:59.000Z',
    );
  });
});

describe('isCollectionId', () => {
  it.each(['abcd1234', 'ABCDEFGH', '00000000'])('accepts %p', (s) => {
    expect(isCollectionId(s)).toBe(true);
  });
  it.each(['abcd123', 'abcd12345', 'abcd-123', 'abcd 123', '', 'abcdé123', undefined, 12345678])(
    'refuses %p',
    (s) => {
      expect(isCollectionId(s)).toBe(false);
    },
  );
});

describe('isApiKeyFormat', () => {
  it.each(['0123456789abcdef0123456789ABCDEF', 'd41d8cd98f00b204e9800998ecf8427e'])(
    'accepts %p',
    (s) => {
      expect(isApiKeyFormat(s)).toBe(true);
    },
  );
  it.each([
    'd41d8cd98f00b204e9800998ecf8427',
    'd41d8cd98f00b204e9800998ecf8427e0',
    'g'.repeat(32),
    '',
  ])('refuses %p', (s) => {
    expect(isApiKeyFormat(s)).toBe(false);
  });
});

describe('parseThumbnailSize', () => {
  it.each([
    ['130X130', 130, 130],
    ['130x130', 130, 130],
    ['16X1024', 16, 1024],
    ['200x100', 200, 100],
  ])('reads %p', (s, width, height) => {
    expect(parseThumbnailSize(s)).toEqual({ width, height });
  });
  it.each(['15X130', '130X1025', '130*130', '130', 'X130', '130X', ' 130X130', '-1X-1', '0X0'])(
    'refuses %p',
    (s) => {
      expect(parseThumbnailSize(s)).toBeNull();
    },
  );
});

describe('int64 text', () => {
  /** parseScoreValue reads text as `read` (null: not int64 integer text); isInt64Text agrees. */
  const expectRead = (text: string, read: string | null) => {
    expect(parseScoreValue(text)).toBe(read);
    expect(isInt64Text(text)).toBe(read !== null);
  };

  it.each([
    ['9223372036854775807', '9223372036854775807'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['00009223372036854775807', '9223372036854775807'],
    ['-0', '0'],
    ['12', '12'],
  ])('parseScoreValue(%p) is %p', expectRead);

  it.each([
    '9223372036854775808',
    '-9223372036854775809',
    '99999999999999999999',
    '1.0',
    '1e3',
    '+1',
    '',
    '-',
    ' 1',
    '0x1',
  ])('%p is not int64 integer text', (text) => expectRead(text, null));

  testCalls('checkUnixTime(%p)', checkUnixTime, [
    ['0', { ok: true, value: '0' }],
    ['253402300799', { ok: true, value: '253402300799' }],
    ['253402300800', { ok: false, reason: 'too-big' }],
    ['1' + '0'.repeat(30), { ok: false, reason: 'too-big' }],
    ['-1', { ok: false, reason: 'invalid' }],
    ['1.5', { ok: false, reason: 'invalid' }],
  ]);
});

describe('text helpers', () => {
  testCalls('utf8ByteLength(%p) is %i', utf8ByteLength, [
    ['', 0],
    ['abc', 3],
    ['é', 2],
    ['가', 3],
    ['\u{1F600}', 4],
    ['\uD800', 3],
  ]);

  testCalls('hasNulOrLoneSurrogate(%p) is %p', hasNulOrLoneSurrogate, [
    ['a\u0000', true],
    ['\uD800', true],
    ['\uDC00a', true],
    ['\uDE00\uD83D', true],
    ['\u{1F600}', false],
    ['plain', false],
  ]);

  testCalls('hasBadJsonEscape(%s) is %p', hasBadJsonEscape, [
    ['"\\u0000"', true],
    ['"\\uD800"', true],
    ['"\\uDC00"', true],
    ['"\\uD800x"', true],
    ['"\\uD83D\\uDE00"', false],
    ['"\\\\u0000"', false],
    ['"\\\\\\u0000"', true],
    ['"\\n\\t\\u0041"', false],
  ]);

  testCalls('parseDigits(%p, %i) is %p', parseDigits, [
    ['0', 10, 0],
    ['010', 10, 10],
    ['11', 10, null],
    ['', 10, null],
    ['-1', 10, null],
    ['9'.repeat(30), Number.MAX_SAFE_INTEGER, null],
  ]);
});
