import { parseSearchFacet, SEARCH_ERRORS, SEARCH_HTTP_ERRORS } from '../src';

describe('parseSearchFacet (beyond the spec)', () => {
  it.each([
    ['missing', undefined],
    ['null', null],
    ['empty', ''],
    ['blank', ' \t '],
  ])('When facet is %s, no facet is asked for', (_, raw) => {
    expect(parseSearchFacet(raw)).toEqual({ ok: true, value: null });
  });

  it.each(['categories', ' categories '])('When facet is %p, the categories are counted', (raw) => {
    expect(parseSearchFacet(raw)).toEqual({ ok: true, value: 'categories' });
  });

  it.each(['Categories', 'category', 'ca', 'categories,categories', 'categories\u0000', 'dates'])(
    'When facet is %p, it answers 400 facet parameter is invalid',
    (raw) => {
      expect(parseSearchFacet(raw)).toEqual({ ok: false, error: SEARCH_HTTP_ERRORS.facetInvalid });
    },
  );

  it('When the answer is given, it is no spec row (the spec has no facet parameter)', () => {
    const texts = Object.values(SEARCH_ERRORS).flatMap((t) => Object.values(t).map((r) => r.text));
    expect(texts).not.toContain(SEARCH_HTTP_ERRORS.facetInvalid.text);
    expect(SEARCH_HTTP_ERRORS.facetInvalid).toEqual({
      status: 400,
      text: 'facet parameter is invalid',
    });
  });
});
