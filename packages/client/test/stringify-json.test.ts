import { parseJsonExact } from '../src/json/exact-json';
import { stringifyJson } from '../src/json/stringify-json';

describe('stringifyJson', () => {
  it('A bigint is written as its digits', () => {
    expect(stringifyJson({ score_big: 9223372036854775807n, n: -9223372036854775808n })).toBe(
      '{"score_big":9223372036854775807,"n":-9223372036854775808}',
    );
  });

  it('Everything else is written as JSON.stringify writes it', () => {
    const value = {
      s: '서울 "q" \n \u0000',
      n: [1, -2.5, 1e21],
      nested: { a: [], b: {}, u: undefined, nil: null, t: true },
      arr: [undefined, () => 1],
      date: new Date(Date.UTC(2026, 10, 23)),
    };
    expect(stringifyJson(value)).toBe(JSON.stringify(value));
  });

  it('What it writes parses back to the same values, bigints included', () => {
    const value = { a: [1, 2n ** 63n - 1n, { b: -(2n ** 63n) }], c: 'x' };
    expect(parseJsonExact(stringifyJson(value))).toEqual(value);
  });

  it('A number that is not finite is refused', () => {
    expect(() => stringifyJson({ a: Number.NaN })).toThrow(TypeError);
    expect(() => stringifyJson(Infinity)).toThrow(TypeError);
  });
});
