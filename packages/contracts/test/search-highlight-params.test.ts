import {
  HIGHLIGHT_DEFAULT_TAGS,
  HIGHLIGHT_TAG_MAX_BYTES,
  parseHighlightParams,
  SEARCH_HTTP_ERRORS,
  type HighlightParamsInput,
} from '../src';

const E = SEARCH_HTTP_ERRORS;

function parsed(raw: HighlightParamsInput) {
  const r = parseHighlightParams(raw);
  return r.ok ? { value: r.value } : { error: r.error };
}

describe('parseHighlightParams', () => {
  it.each([
    ['missing', {}],
    ['empty', { hl: '' }],
    ['blank', { hl: ' ' }],
    ['0', { hl: '0' }],
    ['0 with tags that would be refused', { hl: '0', hl_pre: 'x'.repeat(100), hl_post: '\u0000' }],
  ])('When hl is %s, there are no highlights and hl_pre / hl_post are not read', (_what, raw) => {
    expect(parsed(raw)).toEqual({ value: null });
  });

  it('When hl is 1 without tags, the tags are <em> and </em>', () => {
    expect(parsed({ hl: '1' })).toEqual({ value: { pre: '<em>', post: '</em>' } });
    expect(parsed({ hl: ' 1 ', hl_pre: '', hl_post: '  ' })).toEqual({
      value: HIGHLIGHT_DEFAULT_TAGS,
    });
  });

  it('When hl is 1 with tags, they are taken as given (not trimmed), up to 32 UTF-8 bytes', () => {
    expect(parsed({ hl: '1', hl_pre: ' [', hl_post: '] ' })).toEqual({
      value: { pre: ' [', post: '] ' },
    });
    const longest = '가'.repeat(10) + 'ab'; // 32 bytes
    expect(parsed({ hl: '1', hl_pre: longest, hl_post: longest })).toEqual({
      value: { pre: longest, post: longest },
    });
  });

  it.each([
    ['hl=2', { hl: '2' }, E.hlInvalid],
    ['hl=true', { hl: 'true' }, E.hlInvalid],
    ['hl=01', { hl: '01' }, E.hlInvalid],
    ['hl_pre of 33 bytes', { hl: '1', hl_pre: 'x'.repeat(33) }, E.hlPreTooLong],
    ['hl_pre of 11 Hangul syllables', { hl: '1', hl_pre: '가'.repeat(11) }, E.hlPreTooLong],
    ['hl_pre with U+0000 (invalid encoding)', { hl: '1', hl_pre: '<b\u0000' }, E.hlPreInvalid],
    ['hl_pre with a lone surrogate', { hl: '1', hl_pre: '\uD800' }, E.hlPreInvalid],
    ['hl_post of 33 bytes', { hl: '1', hl_post: 'x'.repeat(33) }, E.hlPostTooLong],
    ['hl_post with U+0000', { hl: '1', hl_post: '\u0000' }, E.hlPostInvalid],
    [
      'both bad: hl_pre first',
      { hl: '1', hl_pre: '\u0000', hl_post: 'x'.repeat(40) },
      E.hlPreInvalid,
    ],
  ])('When %s, the answer is its row', (_what, raw, error) => {
    expect(parsed(raw)).toEqual({ error });
    expect(error.status).toBe(400);
  });

  it('When the too-long texts name the limit, it is the limit checked', () => {
    expect(E.hlPreTooLong.text).toContain(`at most ${HIGHLIGHT_TAG_MAX_BYTES} bytes`);
    expect(E.hlPostTooLong.text).toContain(`at most ${HIGHLIGHT_TAG_MAX_BYTES} bytes`);
  });
});
