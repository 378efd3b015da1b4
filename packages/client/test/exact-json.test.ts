import { exactNumber, isIntegerText, parseJsonExact } from '../src/json/exact-json';

/** parseJsonExact reads `text` as JSON.parse does. */
function readsLikeJsonParse(text: string): void {
  expect(parseJsonExact(text)).toEqual(JSON.parse(text));
}

describe('parseJsonExact', () => {
  it('Integers beyond 2^53 keep every digit as bigint', () => {
    expect(parseJsonExact('9223372036854775807')).toBe(9223372036854775807n);
    expect(parseJsonExact('-9223372036854775808')).toBe(-9223372036854775808n);
    expect(parseJsonExact('[9007199254740993]')).toEqual([9007199254740993n]);
  });

  it('Integers a double holds exactly stay numbers', () => {
    expect(parseJsonExact('[0, -0, 9007199254740991, -9007199254740991, 42]')).toEqual([
      0, -0, 9007199254740991, -9007199254740991, 42,
    ]);
  });

  it('Negative numbers, fractions and exponents are numbers as JSON.parse reads them', () => {
    readsLikeJsonParse('[-1, -1.5, 1e3, 1E+3, 2.5e-3, -0.0, 1e400]');
  });

  it('Digits inside strings are text, not numbers', () => {
    const text =
      '{"a":"9223372036854775807","b":"1e3 -5","c":"\\"12345678901234567890\\"","d":"\\\\"}';
    expect(parseJsonExact(text)).toEqual({
      a: '9223372036854775807',
      b: '1e3 -5',
      c: '"12345678901234567890"',
      d: '\\',
    });
  });

  it('Escapes in strings and keys decode as JSON.parse decodes them', () => {
    readsLikeJsonParse('{"k\\u00e9y":"\\ud83d\\ude00 \\n\\t\\/ 서울","\\"":1}');
  });

  it('Nested objects and arrays keep their shape and key order', () => {
    const text =
      '{ "z": {"y": [1, {"x": 12345678901234567890}], "w": []}, "a": {}, "n": null, "t": true, "f": false }';
    const value = parseJsonExact(text) as Record<string, unknown>;
    expect(value).toEqual({
      z: { y: [1, { x: 12345678901234567890n }], w: [] },
      a: {},
      n: null,
      t: true,
      f: false,
    });
    expect(Object.keys(value)).toEqual(['z', 'a', 'n', 't', 'f']);
  });

  it('The reviver gets each number as its source text with its path', () => {
    const seen: [string, (string | number)[]][] = [];
    parseJsonExact('{"a":[1.50,{"b":-7e+2}],"c":0}', (source, path) => {
      seen.push([source, [...path]]);
      return source;
    });
    expect(seen).toEqual([
      ['1.50', ['a', 0]],
      ['-7e+2', ['a', 1, 'b']],
      ['0', ['c']],
    ]);
  });

  it('A "__proto__" key is an own property, as with JSON.parse', () => {
    const value = parseJsonExact('{"__proto__":{"polluted":1}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    [''],
    ['{'],
    ['[1,]'],
    ['{"a":1,}'],
    ['01'],
    ['1.'],
    ['-'],
    ['+1'],
    ['.5'],
    ['"unterminated'],
    ['"bad \\x escape"'],
    ['"raw\ncontrol"'],
    ['{"a" 1}'],
    ['[1 2]'],
    ['tru'],
    ['NaN'],
    ['1 2'],
  ])('Text that is not JSON (%j) throws SyntaxError', (text) => {
    expect(() => parseJsonExact(text)).toThrow(SyntaxError);
  });

  it('isIntegerText accepts only JSON integers', () => {
    expect(['0', '-0', '12', '-9223372036854775808'].every(isIntegerText)).toBe(true);
    expect(['1.0', '1e3', '01', '+1', '', '-'].some(isIntegerText)).toBe(false);
  });

  it('exactNumber: a safe integer is a number, a larger one a bigint', () => {
    expect(exactNumber('9007199254740991', [])).toBe(9007199254740991);
    expect(exactNumber('9007199254740992', [])).toBe(9007199254740992n);
    expect(exactNumber('1.25', [])).toBe(1.25);
  });
});
