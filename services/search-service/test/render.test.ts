import {
  searchJson as searchJsonBytes,
  searchXml,
  statusJson,
  statusXml,
  xmlText,
} from '../src/http/render';
import type { SearchResult } from '../src/domain/search';

const result = (doc: string, archive: Record<string, string> = {}): SearchResult => ({
  querytime: 3,
  start: 0,
  numfound: 12345678901,
  docs: [{ dockey: 'k<1>', doc: Buffer.from(doc), archive }],
});

/** the JSON answer as text (the writer answers UTF-8 bytes) */
const searchJson = (r: SearchResult): string => searchJsonBytes(r).toString('utf8');

describe('JSON writer', () => {
  test('When a stored doc has int64 numbers, the JSON keeps their exact text', () => {
    const json = searchJson(
      result(
        '{"icontents_title":"t","score_a":9223372036854775807,"score_b":-9223372036854775808,"categories":[1,2147483647]}',
      ),
    );
    expect(json).toBe(
      '{"querytime":3,"start":0,"numfound":12345678901,"docs":[{"dockey":"k<1>","icontents_title":"t",' +
        '"score_a":9223372036854775807,"score_b":-9223372036854775808,"categories":[1,2147483647]}]}',
    );
  });

  test('When a doc has no categories, the result lists an empty category list; archive fields come last', () => {
    const json = searchJson(
      result('{"icontents_title":"t"}', { archive_thumbnail_130X130: 'http://t/x' }),
    );
    expect(JSON.parse(json).docs[0]).toEqual({
      dockey: 'k<1>',
      icontents_title: 't',
      categories: [],
      archive_thumbnail_130X130: 'http://t/x',
    });
  });

  test('When strings hold quotes, controls or non-BMP characters, the JSON stays valid and exact', () => {
    const title = 'a"b\\c\n\u0001😀';
    const json = searchJson(result(JSON.stringify({ icontents_title: title })));
    expect(JSON.parse(json).docs[0].icontents_title).toBe(title);
  });

  test('When the status is written, search_status is the string "true" or "false"', () => {
    expect(statusJson({ searchable: true, documentCount: 5 })).toBe(
      '{"search_status":"true","document_count":5}',
    );
    expect(JSON.parse(statusJson({ searchable: false, documentCount: 0 })).search_status).toBe(
      'false',
    );
  });
});

describe('XML writer', () => {
  test('When a result is written, it has the documented element names and the same data as the JSON', () => {
    const xml = searchXml(
      result(
        '{"icontents_title":"서울 & <맛집>","score_a":9223372036854775807,"categories":[3,4]}',
        {
          archive_thumbnail_130X130: 'http://t/x?a=1&b=2',
        },
      ),
    );
    expect(xml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><result><querytime>3</querytime><start>0</start>' +
        '<numfound>12345678901</numfound><docs><doc><dockey>k&lt;1&gt;</dockey>' +
        '<icontents_title>서울 &amp; &lt;맛집&gt;</icontents_title><score_a>9223372036854775807</score_a>' +
        '<categories><category>3</category><category>4</category></categories>' +
        '<archive_thumbnail_130X130>http://t/x?a=1&amp;b=2</archive_thumbnail_130X130></doc></docs></result>',
    );
  });

  test('When text holds characters XML 1.0 forbids, they are removed; quotes are escaped', () => {
    expect(xmlText('a\u0000b\u0001c\u0008d\u000be\u000cf\u001fg\ufffeh\uffffi')).toBe('abcdefghi');
    expect(xmlText('tab\there\nnew\rline')).toBe('tab\there\nnew\rline');
    expect(xmlText(`"q" 'a'`)).toBe('&quot;q&quot; &apos;a&apos;');
    expect(xmlText('😀 \ud800x')).toBe('😀 x');
  });

  test('When a field name is not a valid XML name, it is written as <field name="...">', () => {
    const xml = searchXml(result('{"xmlish":"v","1bad":"w"}'));
    expect(xml).toContain('<field name="xmlish">v</field><field name="1bad">w</field>');
  });

  test('When the status is written, it is <status> with search_status and document_count', () => {
    expect(statusXml({ searchable: true, documentCount: 7 })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><status><search_status>true</search_status>' +
        '<document_count>7</document_count></status>',
    );
  });
});

describe('JSON writer: splicing the stored text', () => {
  test('When a string value mentions "categories": (escaped quotes), the doc still gets an empty list', () => {
    const doc = JSON.stringify({
      icontents_title: '{"categories":[1]}',
      contents_x: ',"categories":',
    });
    const parsed = JSON.parse(searchJson(result(doc)));
    expect(parsed.docs[0].categories).toEqual([]);
    expect(parsed.docs[0].icontents_title).toBe('{"categories":[1]}');
  });

  test("When a page has several docs of multi-byte text, each doc's bytes are spliced whole, comma-separated", () => {
    const docs = [
      '{"icontents_title":"서울 맛집 😀"}',
      '{}',
      '{"categories":[2],"icontents_b":"é"}',
    ];
    const page: SearchResult = {
      querytime: 1,
      start: 0,
      numfound: 3,
      docs: docs.map((doc, i) => ({ dockey: `k${i}`, doc: Buffer.from(doc), archive: {} })),
    };
    expect(searchJson(page)).toBe(
      '{"querytime":1,"start":0,"numfound":3,"docs":[' +
        '{"dockey":"k0","icontents_title":"서울 맛집 😀","categories":[]},' +
        '{"dockey":"k1","categories":[]},' +
        '{"dockey":"k2","categories":[2],"icontents_b":"é"}]}',
    );
  });

  test('When categories is the first field or the doc is empty, the output is still valid JSON', () => {
    expect(JSON.parse(searchJson(result('{"categories":[7],"score_a":1}'))).docs[0]).toEqual({
      dockey: 'k<1>',
      categories: [7],
      score_a: 1,
    });
    expect(JSON.parse(searchJson(result('{}'))).docs[0]).toEqual({
      dockey: 'k<1>',
      categories: [],
    });
  });
});

describe('highlight fields (hl=1)', () => {
  const highlighted: SearchResult = {
    ...result('{"icontents_title":"a <b>"}', { archive_thumbnail: 'http://t/x' }),
    docs: [
      {
        dockey: 'k',
        doc: Buffer.from('{"icontents_title":"a <b>"}'),
        archive: { archive_thumbnail: 'http://t/x' },
        highlight: { title: '<em>a</em> &lt;b&gt;', body: 'x "&amp;"' },
      },
    ],
  };

  test('When a document has highlights, they come last: the fragment is the JSON string as it is', () => {
    const doc = JSON.parse(searchJson(highlighted)).docs[0];
    expect(Object.keys(doc)).toEqual([
      'dockey',
      'icontents_title',
      'categories',
      'archive_thumbnail',
      'highlight_title',
      'highlight_body',
    ]);
    expect([doc.highlight_title, doc.highlight_body]).toEqual([
      '<em>a</em> &lt;b&gt;',
      'x "&amp;"',
    ]);
  });

  test('When a document has highlights, the XML escapes the fragment like any text (a parser reads the same string)', () => {
    expect(searchXml(highlighted)).toContain(
      '<archive_thumbnail>http://t/x</archive_thumbnail>' +
        '<highlight_title>&lt;em&gt;a&lt;/em&gt; &amp;lt;b&amp;gt;</highlight_title>' +
        '<highlight_body>x &quot;&amp;amp;&quot;</highlight_body></doc>',
    );
  });

  test('When a document has no highlights, neither format names them', () => {
    expect(searchJson(result('{}'))).not.toContain('highlight');
    expect(searchXml(result('{}'))).not.toContain('highlight');
  });
});
