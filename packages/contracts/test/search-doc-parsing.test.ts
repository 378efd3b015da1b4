import { parseDoc, SEARCH_ERRORS } from '../src';
import { doc, errorOf, value } from './helpers';

const E = SEARCH_ERRORS.add;

describe('parseDoc: the doc as a whole', () => {
  it.each([
    ['undefined', undefined, '400 doc is null', E.docNull],
    ['null', null, '400 doc is null', E.docNull],
    ['an empty string', '', '400 doc is empty', E.docEmpty],
    ['whitespace only', ' \t\n ', '400 doc is empty', E.docEmpty],
  ])('When doc is %s, parseDoc answers %s', (_what, raw, _label, expected) => {
    expect(errorOf(parseDoc(raw))).toBe(expected);
  });

  it.each([
    ['a raw U+0000', doc({ icontents_body: '"a\u0000b"' })],
    ['a \\u0000 escape', doc({ icontents_body: '"a\\u0000b"' })],
    ['a raw lone high surrogate', doc({ icontents_body: '"a\uD800b"' })],
    ['a raw lone low surrogate', doc({ icontents_body: '"a\uDC00b"' })],
    ['an escaped lone high surrogate', doc({ icontents_body: '"a\\uD800b"' })],
    [
      'an escaped lone high surrogate at the end of a string',
      doc({ icontents_body: '"a\\ud800"' }),
    ],
    ['an escaped lone low surrogate', doc({ icontents_body: '"\\uDC00"' })],
    ['two escaped high surrogates', doc({ icontents_body: '"\\uD800\\uD800"' })],
    [
      'an escaped high surrogate followed by another escape',
      doc({ icontents_body: '"\\uD800\\n"' }),
    ],
    ['a \\u0000 escape in a key', doc({ 'contents_x\u0000': '"x"' })],
    ['a U+0000 in broken JSON (the encoding check comes first)', '{"a":"\u0000"'],
  ])(
    'When doc contains %s, parseDoc answers 400 doc is invalid - incorrect utf-8 string value',
    (_what, raw) => {
      expect(errorOf(parseDoc(raw))).toBe(E.docInvalidUtf8);
    },
  );

  it.each([
    ['an escaped backslash before u0000', doc({ icontents_body: '"a\\\\u0000b"' }), 'a\\u0000b'],
    ['an escaped surrogate pair', doc({ icontents_body: '"\\uD83D\\uDE00"' }), '\u{1F600}'],
    ['a raw surrogate pair', doc({ icontents_body: '"\u{1F600}"' }), '\u{1F600}'],
    ['Korean text', doc({ icontents_body: '"한국어 본문"' }), '한국어 본문'],
  ])('When doc contains %s, parseDoc accepts it', (_what, raw, body) => {
    expect(value(parseDoc(raw)).body).toBe(body);
  });

  it.each([
    ['not JSON', 'hello'],
    ['truncated JSON', '{"icontents_title":"a"'],
    ['trailing text', doc() + 'x'],
    ['single quotes', "{'icontents_title':'a'}"],
    ['a top-level array', '[1,2]'],
    ['a top-level string', '"text"'],
    ['a top-level number', '42'],
    ['top-level null', 'null'],
    ['a duplicate key with different values', doc({ contents_x: '"a", "contents_x": "b"' })],
    ['a duplicate key with equal values', doc({ contents_x: '"a", "contents_x": "a"' })],
    ['a duplicate key spelled with an escape', doc({ contents_x: '"a", "contents_\\u0078": "a"' })],
    ['a duplicate key in a nested object', doc({ contents_x: '{"a":1,"a":1}' })],
    ['a raw control character in a string', doc({ icontents_body: '"a\u0001b"' })],
    ['a leading byte order mark', '\uFEFF' + doc()],
  ])('When doc is %s, parseDoc answers 400 doc json parsing fail', (_what, raw) => {
    expect(errorOf(parseDoc(raw))).toBe(E.docJsonParsingFail);
  });

  function withUserFields(count: number): string {
    const extra: Record<string, string> = {};
    for (let i = 0; i < count; i++) extra[`contents_f${i}`] = '"v"';
    return doc(extra);
  }

  it('When doc has 35 fields (reserved ones included), parseDoc accepts it', () => {
    expect(value(parseDoc(withUserFields(32))).fields).toHaveLength(35);
  });

  it('When doc has 36 fields, parseDoc answers 400 json contains too many fields', () => {
    expect(errorOf(parseDoc(withUserFields(33)))).toBe(E.tooManyFields);
  });

  it('When doc has 36 fields and a bad field name, the field count answers first', () => {
    expect(errorOf(parseDoc(withUserFields(32).replace('{', '{"bad":1,')))).toBe(E.tooManyFields);
  });
});

describe('parseDoc: field names', () => {
  it.each([
    'title',
    'contents',
    'contents_',
    '_title',
    'Contents_x',
    'text_x',
    'contents_a_b',
    'contents_a-b',
    'contents_한글',
    'contents_' + 'a'.repeat(65),
    'Categories',
    'category',
    '1',
    'contents_title',
    'score_body',
    'icontents_regdate',
    'score_image',
    'icontents_url',
    'score_title',
    'contents_categories',
    'icontents_Title',
  ])(
    'When doc has a field named %p, parseDoc answers 406 document fieldname is invalid',
    (name) => {
      expect(errorOf(parseDoc(doc({ [name]: '"x"' })))).toBe(E.fieldnameInvalid);
    },
  );

  it.each(['contents_x', 'contents_' + 'a'.repeat(64), 'icontents_Tag2', 'contents_URL2'])(
    'When doc has a user field named %p, parseDoc accepts it',
    (name) => {
      const parsed = value(parseDoc(doc({ [name]: '"x"' })));
      expect({ ...parsed.contents, ...parsed.icontents }[name]).toBe('x');
    },
  );
});

describe('parseDoc: contents_image', () => {
  it.each([
    ['a relative path', '"/img/a.png"'],
    ['a bare word', '"image"'],
    ['an ftp URL', '"ftp://example.com/a.png"'],
    ['a data URL', '"data:image/png;base64,AAAA"'],
    ['an empty string', '""'],
  ])('When contents_image is %s, parseDoc answers 406 thumbnail key make fail', (_what, v) => {
    expect(errorOf(parseDoc(doc({ contents_image: v })))).toBe(E.thumbnailKeyFail);
  });

  it.each(['http://example.com/a.png', 'https://cdn.example.com/x/y.jpg?w=1'])(
    'When contents_image is %s, parseDoc accepts it',
    (url) => {
      expect(value(parseDoc(doc({ contents_image: JSON.stringify(url) }))).image).toBe(url);
    },
  );
});

describe('parseDoc: check order', () => {
  it('checks fields in document order: a bad score before a bad name answers the score', () => {
    const raw =
      '{"score_x":"a","bad":1,"icontents_title":"t","icontents_body":"b","score_regdate":1}';
    expect(errorOf(parseDoc(raw))).toBe(E.scoreValueInvalid);
  });

  it('keeps document order for integer-like keys (which JavaScript objects list first)', () => {
    const raw =
      '{"score_x":"a","1":1,"icontents_title":"t","icontents_body":"b","score_regdate":1}';
    expect(errorOf(parseDoc(raw))).toBe(E.scoreValueInvalid);
  });

  it('checks field values before required fields: a bad category with no title answers the category', () => {
    expect(errorOf(parseDoc('{"categories":"x"}'))).toBe(E.categoryValueInvalid);
  });

  it('a null title with a bad string field answers the string field (title is checked later)', () => {
    expect(errorOf(parseDoc(doc({ icontents_title: 'null', contents_x: '1' })))).toBe(
      E.stringValueInvalid,
    );
  });

  it('required fields before contents_image: a bad image and no body answers the body', () => {
    expect(errorOf(parseDoc(doc({ icontents_body: 'OMIT', contents_image: '"x"' })))).toBe(
      E.bodyEmpty,
    );
  });

  it('empty before encoding: whitespace is empty, not invalid', () => {
    expect(errorOf(parseDoc('   '))).toBe(E.docEmpty);
  });

  it('encoding before JSON: broken JSON with a lone surrogate answers the encoding', () => {
    expect(errorOf(parseDoc('{"a":"\\uD800'))).toBe(E.docInvalidUtf8);
  });
});

describe('parseDoc: update uses the update table', () => {
  it('When update sends a doc with 36 fields, the error is the update row', () => {
    const extra: Record<string, string> = {};
    for (let i = 0; i < 33; i++) extra[`score_s${i}`] = String(i);
    expect(errorOf(parseDoc(doc(extra), 'update'))).toBe(SEARCH_ERRORS.update.tooManyFields);
  });

  it('When update sends no doc, parseDoc answers the update row 400 doc is null', () => {
    expect(errorOf(parseDoc(undefined, 'update'))).toBe(SEARCH_ERRORS.update.docNull);
  });
});

describe('parseDoc: the parsed document', () => {
  const raw =
    '{"contents_url":"https://example.com/p/1","icontents_title":"제목","icontents_body":"본문",' +
    '"score_regdate":1700000000,"contents_image":"https://example.com/a.png","categories":[3,1],' +
    '"icontents_tag":"news","contents_author":"kim","score_view":9223372036854775807}';

  it('exposes every view of the fields', () => {
    const parsed = value(parseDoc(raw));
    expect(parsed.title).toBe('제목');
    expect(parsed.body).toBe('본문');
    expect(parsed.regdate).toBe('1700000000');
    expect(parsed.categories).toEqual([3, 1]);
    expect(parsed.url).toBe('https://example.com/p/1');
    expect(parsed.image).toBe('https://example.com/a.png');
    expect(parsed.icontents).toEqual({
      icontents_title: '제목',
      icontents_body: '본문',
      icontents_tag: 'news',
    });
    expect(parsed.contents).toEqual({
      contents_url: 'https://example.com/p/1',
      contents_image: 'https://example.com/a.png',
      contents_author: 'kim',
    });
    expect(parsed.scores).toEqual({
      score_regdate: '1700000000',
      score_view: '9223372036854775807',
    });
    expect(parsed.fields.map(([name]) => name)).toEqual([
      'contents_url',
      'icontents_title',
      'icontents_body',
      'score_regdate',
      'contents_image',
      'categories',
      'icontents_tag',
      'contents_author',
      'score_view',
    ]);
  });

  it('re-serialises the doc in document order with exact numbers', () => {
    expect(value(parseDoc(raw)).json).toBe(raw);
  });

  it('has null url, image and categories when they are absent', () => {
    const parsed = value(parseDoc(doc()));
    expect([parsed.url, parsed.image, parsed.categories]).toEqual([null, null, null]);
  });
});
