import { parsePrefixParam, SEARCH_ERRORS, SEARCH_HTTP_ERRORS } from '../src';

describe('parsePrefixParam (beyond the spec)', () => {
  it.each([
    ['missing', undefined],
    ['null', null],
    ['empty', ''],
    ['blank', ' \t '],
    ['0', '0'],
  ])('When prefix is %s, the last word is matched whole', (_, raw) => {
    expect(parsePrefixParam(raw)).toEqual({ ok: true, value: false });
  });

  it.each(['1', ' 1 '])('When prefix is %p, the last word is a prefix', (raw) => {
    expect(parsePrefixParam(raw)).toEqual({ ok: true, value: true });
  });

  it.each(['2', 'true', 'yes', '01', '1,1', '1\u0000'])(
    'When prefix is %p, it answers 400 prefix parameter is invalid',
    (raw) => {
      expect(parsePrefixParam(raw)).toEqual({
        ok: false,
        error: SEARCH_HTTP_ERRORS.prefixInvalid,
      });
    },
  );

  it('When the answer is given, it is no spec row (the spec has no prefix parameter)', () => {
    const texts = Object.values(SEARCH_ERRORS).flatMap((t) => Object.values(t).map((r) => r.text));
    expect(texts).not.toContain(SEARCH_HTTP_ERRORS.prefixInvalid.text);
    expect(SEARCH_HTTP_ERRORS.prefixInvalid).toEqual({
      status: 400,
      text: 'prefix parameter is invalid',
    });
  });
});
