import {
  parseDockey,
  parseFieldUpdate,
  parseForce,
  SEARCH_ERRORS,
  type ContractError,
} from '../src';
import { errorOf, labelled, testCalls, value } from './helpers';

const F = SEARCH_ERRORS.fieldUpdate;

describe('parseDockey', () => {
  const ops = ['add', 'update', 'delete', 'fieldUpdate'] as const;

  it.each(ops)('When dockey is missing for %s, parseDockey answers 400 dockey is null', (op) => {
    expect(errorOf(parseDockey(undefined, op))).toBe(SEARCH_ERRORS[op].dockeyNull);
    expect(errorOf(parseDockey(null, op))).toBe(SEARCH_ERRORS[op].dockeyNull);
  });

  it.each(['', '   '])(
    'When dockey is %p for field update, parseDockey answers 404 dockey is empty',
    (raw) => {
      expect(errorOf(parseDockey(raw, 'fieldUpdate'))).toBe(F.dockeyEmpty);
    },
  );

  it.each(['add', 'update', 'delete'] as const)(
    'When dockey is blank for %s, parseDockey answers 404 dockey is invalid',
    (op) => {
      expect(errorOf(parseDockey('', op))).toBe(SEARCH_ERRORS[op].dockeyInvalid);
      expect(errorOf(parseDockey(' \t', op))).toBe(SEARCH_ERRORS[op].dockeyInvalid);
    },
  );

  it.each([
    ['1025 ASCII bytes', 'a'.repeat(1025)],
    ['1026 bytes of two-byte characters', 'é'.repeat(513)],
    ['1026 bytes of three-byte characters', '가'.repeat(342)],
    ['1028 bytes of four-byte characters', '\u{1F600}'.repeat(257)],
    ['a U+0000', 'doc\u0000key'],
    ['a lone high surrogate', 'doc\uD800'],
    ['a lone low surrogate', '\uDC00doc'],
  ])('When dockey has %s, parseDockey answers 404 dockey is invalid', (_what, raw) => {
    for (const op of ops)
      expect(errorOf(parseDockey(raw, op))).toBe(SEARCH_ERRORS[op].dockeyInvalid);
  });

  it.each([
    ['1024 ASCII bytes', 'a'.repeat(1024)],
    ['1024 bytes of two-byte characters', 'é'.repeat(512)],
    ['1024 bytes of four-byte characters', '\u{1F600}'.repeat(256)],
    ['spaces around it (kept as given)', ' key '],
    ['a URL', 'https://example.com/a?b=c'],
  ])('When dockey is %s, parseDockey accepts it unchanged', (_what, raw) => {
    expect(value(parseDockey(raw, 'add'))).toBe(raw);
  });
});

describe('parseForce', () => {
  testCalls('When force is %p, it means %p (only "1" means 1)', parseForce, [
    [undefined, false],
    [null, false],
    ['', false],
    ['0', false],
    ['1', true],
    ['2', false],
    ['true', false],
    [' 1', false],
    ['01', false],
  ]);
});

describe('parseFieldUpdate', () => {
  /**
   * One test per [what, value, error] case: parseFieldUpdate with `name` = value (the other
   * field valid: score_view, 1) answers error.
   */
  const refuses = (
    name: 'fieldname' | 'fieldvalue',
    cases: [string, string | null | undefined, ContractError][],
  ) =>
    it.each(labelled(cases))(
      `When ${name} is %s, parseFieldUpdate answers %s`,
      (_what, _label, raw, expected) => {
        const input = { fieldname: 'score_view', fieldvalue: '1', [name]: raw };
        expect(errorOf(parseFieldUpdate(input))).toBe(expected);
      },
    );

  refuses('fieldname', [
    ['missing', undefined, F.fieldnameNull],
    ['null', null, F.fieldnameNull],
    ['empty', '', F.fieldnameEmpty],
    ['whitespace only', '  ', F.fieldnameEmpty],
    ['not {type}_{name}', 'view', F.fieldnameInvalid],
    ['an unknown type', 'number_view', F.fieldnameInvalid],
    ['a name with a dash', 'score_a-b', F.fieldnameInvalid],
    ['padded with spaces', ' score_view', F.fieldnameInvalid],
    ['a reserved name part under score', 'score_title', F.fieldnameInvalid],
    ['a reserved name part under score (image)', 'score_image', F.fieldnameInvalid],
    ['a contents field', 'contents_author', F.fieldtypeInvalid],
    ['an icontents field', 'icontents_tag', F.fieldtypeInvalid],
    ['the reserved title', 'icontents_title', F.fieldtypeInvalid],
    ['categories', 'categories', F.fieldtypeInvalid],
  ]);

  refuses('fieldvalue', [
    ['missing', undefined, F.fieldvalueNull],
    ['null', null, F.fieldvalueNull],
    ['empty', '', F.fieldvalueInvalid],
    ['a float', '1.5', F.fieldvalueInvalid],
    ['1.0', '1.0', F.fieldvalueInvalid],
    ['an exponent', '1e3', F.fieldvalueInvalid],
    ['a plus sign', '+1', F.fieldvalueInvalid],
    ['padded', ' 1', F.fieldvalueInvalid],
    ['a word', 'ten', F.fieldvalueInvalid],
    ['int64 max + 1', '9223372036854775808', F.fieldvalueInvalid],
    ['int64 min - 1', '-9223372036854775809', F.fieldvalueInvalid],
  ]);

  it.each([
    ['9223372036854775807', '9223372036854775807'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['0', '0'],
    ['-0', '0'],
    ['007', '7'],
    ['-15', '-15'],
  ])('When fieldvalue is %p, parseFieldUpdate reads exactly %p', (fieldvalue, expected) => {
    expect(value(parseFieldUpdate({ fieldname: 'score_view', fieldvalue }))).toEqual({
      fieldname: 'score_view',
      value: expected,
    });
  });

  it.each(['-1', '253402300800', '1700000000000', '1.5'])(
    'When score_regdate gets %p, parseFieldUpdate answers 400 fieldvalue is invalid',
    (fieldvalue) => {
      expect(errorOf(parseFieldUpdate({ fieldname: 'score_regdate', fieldvalue }))).toBe(
        F.fieldvalueInvalid,
      );
    },
  );

  it('When score_regdate gets 253402300799, parseFieldUpdate accepts it', () => {
    const r = parseFieldUpdate({ fieldname: 'score_regdate', fieldvalue: '253402300799' });
    expect(value(r).value).toBe('253402300799');
  });

  it('checks the fieldname before the fieldvalue', () => {
    expect(errorOf(parseFieldUpdate({ fieldname: 'contents_x' }))).toBe(F.fieldtypeInvalid);
    expect(errorOf(parseFieldUpdate({ fieldname: 'bad' }))).toBe(F.fieldnameInvalid);
  });
});
