import { isLosslessNumber, stringify } from 'lossless-json';
import { parseDoc } from '../src';
import { parseFlatObject, parseLossless, topLevelKeys } from '../src/search/json';
import { doc, value } from './helpers';

/** What the general path reads: lossless-json's value and the top-level keys (or null). */
function generalPath(text: string) {
  const value = parseLossless(text);
  const plain = typeof value === 'object' && value !== null && !Array.isArray(value);
  return { value, keys: plain && !isLosslessNumber(value) ? topLevelKeys(text) : null };
}

/** Values and keys as comparable data (a LosslessNumber as its text). */
function shape(read: { value: unknown; keys: string[] | null }) {
  return JSON.stringify([read.keys, read.value], (_k, v: unknown) =>
    isLosslessNumber(v) ? `#${v.toString()}` : v,
  );
}

const FLAT = [
  '{"icontents_title":"t","icontents_body":"b","score_regdate":1700000000}',
  ' {\t"a" : "x\\"y\\\\" ,\n"b":-0.5e+10 , "c" : [ 1 , 2,3 ] , "d":[ ] }\r\n',
  '{"a":"\\u00e9\\ud83d\\ude00\\n\\/","b":12345678901234567890123,"c":0,"d":-0E-0}',
  '{"키":"서울에서 맛집을","b":"\\\\","c":"\\\\\\""}',
  '{"1":"x","0":"y","a":[0.5,-1e3]}',
];

/** Texts the fast path leaves to the general path (another shape, or not JSON). */
const NOT_FLAT = [
  '{}',
  '[]',
  '"a"',
  '{"a":null}',
  '{"a":true}',
  '{"a":{"b":1}}',
  '{"a":["x"]}',
  '{"a":[1,]}',
  '{"a":1,}',
  '{"a":1,"a":1}',
  '{"a":1,"a":2}',
  '{"__proto__":"x"}',
  '{"a":01}',
  '{"a":-}',
  '{"a":1.}',
  '{"a":.5}',
  '{"a":1e}',
  '{"a":+1}',
  '{"a":"x\ty"}',
  '{"a":"\\x"}',
  '{"a":"\\u12"}',
  '{"a":"x}',
  '{"a":"x"',
  '{"a":"x"} x',
  '{"a" "x"}',
  "{'a':'x'}",
  '{"a":"x"}\u00a0',
  '{"a":NaN}',
];

describe('parseFlatObject: the fast path of parseDoc', () => {
  it.each(FLAT)('reads %j as the general path does', (text) => {
    const flat = parseFlatObject(text);
    expect(flat).not.toBeNull();
    expect(shape(flat!)).toBe(shape(generalPath(text)));
    expect(Object.keys(flat!.value)).toEqual(Object.keys(generalPath(text).value as object));
  });

  it.each(NOT_FLAT)('leaves %j to the general path', (text) => {
    expect(parseFlatObject(text)).toBeNull();
  });

  it('gives what the general path gives for generated flat docs (property)', () => {
    let seed = 0x2545f491;
    const rand = (n: number) => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    const pieces = [
      'a',
      '서울',
      ' ',
      '"',
      '\\',
      '\n',
      '\u0001',
      '😀',
      '\uD800',
      'é',
      '/',
      '}',
      ',',
    ];
    const string = () => {
      let s = '';
      for (let i = rand(8); i > 0; i--) s += pieces[rand(pieces.length)];
      return rand(4) === 0 ? `"${s.replace(/"/g, '')}"` : JSON.stringify(s);
    };
    const numbers = [
      '0',
      '-1',
      '12',
      '1.5',
      '-0.0e1',
      '1E+2',
      '99999999999999999999',
      '01',
      '1.',
      '-',
    ];
    const number = () => numbers[rand(numbers.length)]!;
    const space = () => [' ', '', '\n', '\t ', ''][rand(5)]!;
    const value = () => {
      const kind = rand(6);
      if (kind < 3) return string();
      if (kind < 5) return number();
      return `[${Array.from({ length: rand(4) }, () => space() + number() + space()).join(',')}]`;
    };
    let read = 0;
    for (let n = 0; n < 5000; n++) {
      const names = Array.from(
        { length: 1 + rand(5) },
        () => `"${['a', 'b', 'icontents_c', '1'][rand(4)]}"`,
      );
      const text = `${space()}{${names.map((k) => `${space()}${k}${space()}:${space()}${value()}${space()}`).join(',')}}${space()}`;
      const flat = parseFlatObject(text);
      const general = generalPath(text);
      if (flat === null) continue; // the general path decides (every error is its own)
      read++;
      expect([text, shape(flat)]).toEqual([text, shape(general)]);
    }
    expect(read).toBeGreaterThan(500);
  });
});

describe('parseDoc: the doc stored', () => {
  it.each([
    ['the required fields', doc()],
    [
      'every kind of field',
      doc({
        categories: '[3, 1,20]',
        score_view: '-12',
        score_big: '9223372036854775807',
        contents_url: '"https://example.com/a?b=\\"c\\""',
        contents_note: '"\\u00e9\\ud83d\\ude00 서울\\n"',
        icontents_extra: '"x"',
      }),
    ],
    ['empty categories', doc({ categories: '[]' })],
  ])("with %s, is lossless-json's stringify of its checked fields", (_what, raw) => {
    const parsed = value(parseDoc(raw));
    expect(parsed.json).toBe(stringify(Object.fromEntries(parsed.fields)));
  });
});
