import { parseReturnType, parseSearchParams, SEARCH_ERRORS, type ContractError } from '../src';
import type { SearchParams, SearchParamsInput } from '../src';
import { errorOf, value } from './helpers';

const S = SEARCH_ERRORS.search;

describe('parseReturnType', () => {
  it.each(['xml', 'json'])('accepts %s', (raw) => {
    expect(value(parseReturnType(raw))).toBe(raw);
  });

  it.each(['JSON', 'Xml', 'html', '', undefined, 'json '])(
    'When the format is %p, parseReturnType answers 400 return type is invalid',
    (raw) => {
      expect(errorOf(parseReturnType(raw))).toBe(S.returnTypeInvalid);
    },
  );
});

describe('parseSearchParams', () => {
  const search = (raw: Partial<SearchParamsInput>) => parseSearchParams({ q: 'news', ...raw });

  /** One test per [value, read] case: search() with `name` = value reads `name` as read. */
  const reads = <N extends keyof SearchParams & keyof SearchParamsInput>(
    name: N,
    readFormat: '%i' | '%p',
    cases: [string, SearchParams[N]][],
  ) =>
    it.each(cases)(`When ${name} is %p, parseSearchParams reads ${readFormat}`, (raw, read) => {
      expect(value(search({ [name]: raw }))[name]).toEqual(read);
    });

  /** One test per value: search() with `name` = value answers `error`. */
  const refuses = (name: keyof SearchParamsInput, error: ContractError, raws: string[]) =>
    it.each(raws)(
      `When ${name} is %p, parseSearchParams answers ${error.status} ${error.text}`,
      (raw) => {
        expect(errorOf(search({ [name]: raw }))).toBe(error);
      },
    );

  it('applies the defaults', () => {
    expect(value(search({}))).toEqual({
      q: 'news',
      start: 0,
      len: 10,
      ca: null,
      exCa: null,
      sort: 0,
      startdate: null,
      enddate: null,
    });
  });

  it.each([
    ['missing', undefined],
    ['null', null],
    ['empty', ''],
    ['whitespace only', ' \t '],
  ])('When q is %s, parseSearchParams answers 400 q is null', (_what, q) => {
    expect(errorOf(parseSearchParams({ q }))).toBe(S.qNull);
  });

  it.each([
    ['1025 ASCII bytes', 'a'.repeat(1025)],
    ['1026 bytes of Korean', '가'.repeat(342)],
  ])('When q has %s, parseSearchParams answers 400 q is too long (under 1KB)', (_what, q) => {
    expect(errorOf(search({ q }))).toBe(S.qTooLong);
  });

  it('When q has 1024 bytes, parseSearchParams accepts it', () => {
    expect(value(search({ q: '가'.repeat(341) + 'a' })).q).toHaveLength(342);
  });

  it('measures q after trimming', () => {
    expect(value(search({ q: '  ' + 'a'.repeat(1024) + '  ' })).q).toBe('a'.repeat(1024));
  });

  it.each([
    ['a U+0000', 'a\u0000b'],
    ['a lone surrogate', 'a\uD800b'],
  ])('When q has %s, parseSearchParams answers 400 q is invalid encoding', (_what, q) => {
    expect(errorOf(search({ q }))).toBe(S.qInvalidEncoding);
  });

  reads('ca', '%p', [
    ['1', [1]],
    ['1,2,3', [1, 2, 3]],
    [' 1 , 2 ', [1, 2]],
    ['0', [0]],
    ['007', [7]],
    ['2147483647', [2147483647]],
    ['1,2,3,4,5,6,7,8,9,10,11,12', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]],
  ]);

  refuses('ca', S.caInvalid, [
    'a',
    '1,',
    ',1',
    '1,,2',
    '-1',
    '+1',
    '1.5',
    '1e3',
    '2147483648',
    '1;2',
    '1 2',
  ]);

  it.each([
    ['1,2,3,4,5,6,7,8,9,10', 10],
    ['5', 1],
  ])('When ex_ca is %p, parseSearchParams accepts its %i entries', (exCa, n) => {
    expect(value(search({ ex_ca: exCa })).exCa).toHaveLength(n);
  });

  refuses('ex_ca', S.exCaInvalid, ['1,2,3,4,5,6,7,8,9,10,11', 'x', '1,,2', '-3']);

  reads('start', '%i', [
    ['0', 0],
    ['10', 10],
    ['989', 989],
    ['990', 990],
  ]);

  refuses('start', S.startInvalid, ['-1', '991', '1000', '1.0', 'abc', '+1', '1e2', '0x10']);

  reads('len', '%i', [
    ['10', 10],
    ['55', 55],
    ['100', 100],
  ]);

  refuses('len', S.lenInvalid, ['9', '0', '101', '-10', '10.5', 'ten']);

  it('When start is 990, len is fixed at 10', () => {
    expect(value(search({ start: '990', len: '100' })).len).toBe(10);
  });

  it('When start is 990 and len is invalid, parseSearchParams still answers len parameter is invalid', () => {
    expect(errorOf(search({ start: '990', len: '500' }))).toBe(S.lenInvalid);
  });

  reads('sort', '%i', [
    ['0', 0],
    ['1', 1],
  ]);

  refuses('sort', S.sortInvalid, ['2', '-1', 'date', '01', 'true']);

  reads('startdate', '%p', [
    ['0', '0'],
    ['1700000000', '1700000000'],
    ['253402300799', '253402300799'],
    ['0001700000000', '1700000000'],
  ]);

  refuses('startdate', S.startdateInvalid, [
    '-1',
    '1.5',
    'yesterday',
    '253402300800',
    '1700000000000',
    '2024-01-01',
  ]);

  refuses('enddate', S.enddateInvalid, ['-1', 'x', '253402300800']);

  it('When enddate is before startdate, parseSearchParams answers 400 enddate parameter is invalid', () => {
    expect(errorOf(search({ startdate: '200', enddate: '100' }))).toBe(S.enddateInvalid);
  });

  it('When enddate equals startdate, parseSearchParams accepts the period', () => {
    const p = value(search({ startdate: '100', enddate: '100' }));
    expect([p.startdate, p.enddate]).toEqual(['100', '100']);
  });

  it.each(['ca', 'ex_ca', 'start', 'len', 'sort', 'startdate', 'enddate'] as const)(
    'When %s is empty or blank, it counts as absent',
    (name) => {
      expect(value(search({ [name]: '' }))).toEqual(value(search({})));
      expect(value(search({ [name]: '  ' }))).toEqual(value(search({})));
    },
  );

  describe('check order follows the spec table', () => {
    const allBad: SearchParamsInput = {
      q: 'a'.repeat(2000),
      ca: 'x',
      ex_ca: 'x',
      start: 'x',
      len: 'x',
      sort: 'x',
      startdate: 'x',
      enddate: 'x',
    };
    const order: [keyof SearchParamsInput, ContractError][] = [
      ['q', S.qTooLong],
      ['ca', S.caInvalid],
      ['ex_ca', S.exCaInvalid],
      ['start', S.startInvalid],
      ['len', S.lenInvalid],
      ['sort', S.sortInvalid],
      ['startdate', S.startdateInvalid],
      ['enddate', S.enddateInvalid],
    ];

    it('When q is missing and everything else is bad, parseSearchParams answers q is null', () => {
      expect(errorOf(parseSearchParams({ ...allBad, q: undefined }))).toBe(S.qNull);
    });

    it.each(order.map(([name, e], i) => [name, e.text, i] as const))(
      'When %s is the first bad parameter, parseSearchParams answers %s',
      (_name, _text, i) => {
        const raw: SearchParamsInput = { ...allBad };
        for (const [fixed] of order.slice(0, i)) raw[fixed] = fixed === 'q' ? 'ok' : undefined;
        expect(errorOf(parseSearchParams(raw))).toBe(order[i]![1]);
      },
    );
  });
});
