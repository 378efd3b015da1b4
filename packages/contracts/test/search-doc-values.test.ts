import { isLosslessNumber } from 'lossless-json';
import { parseDoc, SEARCH_ERRORS, type ContractError } from '../src';
import { doc, errorOf, value } from './helpers';

const E = SEARCH_ERRORS.add;

/**
 * One test per [what, value] case: a doc whose `field` is value (JSON text; 'OMIT': left out)
 * answers `error`. `noun` names the field in the tests' names.
 */
function refuses(field: string, error: ContractError, cases: [string, string][], noun = field) {
  it.each(cases)(
    `When ${noun} is %s, parseDoc answers ${error.status} ${error.text}`,
    (_what, v) => {
      expect(errorOf(parseDoc(doc({ [field]: v })))).toBe(error);
    },
  );
}

describe('parseDoc: categories', () => {
  refuses('categories', E.categoryValueInvalid, [
    ['a number', '5'],
    ['a string', '"1,2"'],
    ['null', 'null'],
    ['an object', '{"a":1}'],
    ['an array with a negative number', '[1,-1]'],
    ['an array with a float', '[1.5]'],
    ['an array with 1.0', '[1.0]'],
    ['an array with an exponent', '[1e3]'],
    ['an array with a string', '["1"]'],
    ['an array with null', '[null]'],
    ['an array with a nested array', '[[1]]'],
    ['an array with a number above 2147483647', '[2147483648]'],
    ['an array with -0', '[-0]'],
  ]);

  it.each([
    ['[]', []],
    ['[0]', [0]],
    ['[1, 2, 3]', [1, 2, 3]],
    ['[2147483647]', [2147483647]],
  ])('When categories is %s, parseDoc accepts it', (v, expected) => {
    expect(value(parseDoc(doc({ categories: v }))).categories).toEqual(expected);
  });

  it('When doc has no categories, categories is null', () => {
    expect(value(parseDoc(doc())).categories).toBeNull();
  });
});

describe('parseDoc: score_regdate', () => {
  refuses('score_regdate', E.dateInvalid, [
    ['a string', '"1700000000"'],
    ['a float', '1700000000.5'],
    ['1.0', '1.0'],
    ['an exponent', '1.7e9'],
    ['a boolean', 'true'],
    ['null', 'null'],
    ['negative', '-1'],
    ['an array', '[1700000000]'],
  ]);

  refuses('score_regdate', E.dateTooBig, [
    ['milliseconds', '1700000000000'],
    ['253402300800 (after 9999-12-31)', '253402300800'],
    ['beyond int64', '99999999999999999999999'],
  ]);

  it.each(['0', '1700000000', '253402300799'])(
    'When score_regdate is %s, parseDoc accepts it',
    (v) => {
      expect(value(parseDoc(doc({ score_regdate: v }))).regdate).toBe(v);
    },
  );

  it('When score_regdate is missing, parseDoc answers 406 document date values is invalid', () => {
    expect(errorOf(parseDoc(doc({ score_regdate: 'OMIT' })))).toBe(E.dateInvalid);
  });
});

describe('parseDoc: other score fields (int64, exact)', () => {
  refuses(
    'score_view',
    E.scoreValueInvalid,
    [
      ['a string', '"5"'],
      ['1.0', '1.0'],
      ['1e3', '1e3'],
      ['a float', '0.5'],
      ['a boolean', 'false'],
      ['null', 'null'],
      ['9223372036854775808 (int64 max + 1)', '9223372036854775808'],
      ['-9223372036854775809 (int64 min - 1)', '-9223372036854775809'],
      ['a huge integer', '1' + '0'.repeat(40)],
    ],
    'a score field',
  );

  it.each([
    ['9223372036854775807', '9223372036854775807'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['0', '0'],
    ['-0', '0'],
    ['-42', '-42'],
    ['9007199254740993', '9007199254740993'],
  ])('When a score field is %s, parseDoc keeps its exact value %s', (v, exact) => {
    const parsed = value(parseDoc(doc({ score_view: v })));
    expect(parsed.scores.score_view).toBe(exact);
    expect(parsed.json).toContain(`"score_view":${exact}`);
  });

  it('keeps 9223372036854775807 exact in json, where JSON.parse would round it', () => {
    const parsed = value(parseDoc(doc({ score_big: '9223372036854775807' })));
    expect(parsed.json).toContain('9223372036854775807');
    expect(JSON.stringify(JSON.parse(parsed.json))).not.toContain('9223372036854775807');
    const field = parsed.fields.find(([name]) => name === 'score_big');
    expect(isLosslessNumber(field?.[1])).toBe(true);
  });
});

describe('parseDoc: string fields and required fields', () => {
  it.each([
    ['contents_url', '5'],
    ['contents_image', 'true'],
    ['contents_x', 'null'],
    ['icontents_x', '["a"]'],
    ['icontents_x', '{"a":"b"}'],
    ['icontents_title', '5'],
    ['icontents_body', 'false'],
  ])('When %s is %s, parseDoc answers 406 document string field values is invalid', (name, v) => {
    expect(errorOf(parseDoc(doc({ [name]: v })))).toBe(E.stringValueInvalid);
  });

  refuses('icontents_title', E.titleEmpty, [
    ['missing', 'OMIT'],
    ['null', 'null'],
    ['empty', '""'],
    ['whitespace only', '"  \\t "'],
  ]);

  refuses('icontents_body', E.bodyEmpty, [
    ['missing', 'OMIT'],
    ['null', 'null'],
    ['empty', '""'],
    ['whitespace only', '"\\n"'],
  ]);

  it('When title and body are both missing, the title answers', () => {
    expect(errorOf(parseDoc('{"score_regdate":1}'))).toBe(E.titleEmpty);
  });

  it('When doc is {}, parseDoc answers the title first', () => {
    expect(errorOf(parseDoc('{}'))).toBe(E.titleEmpty);
  });

  it('accepts an empty contents_* string', () => {
    expect(value(parseDoc(doc({ contents_note: '""' }))).contents.contents_note).toBe('');
  });
});
