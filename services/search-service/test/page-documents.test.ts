import { pageDocument, type PageDocumentJson } from '../src/store/result-documents';

/**
 * A page's document as a search reads it with its snapshot: its columns as JSON and its doc's
 * base64 apart (migrations/1733500000000_search-snapshot-base64-apart.sql).
 */

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

const withThumbnail: PageDocumentJson = [
  '7',
  'k7',
  '2',
  '130X130',
  'key',
  'http://x/a.jpg',
  640,
  480,
];
const without: PageDocumentJson = ['9', 'k9', '1', null, '', '', 0, 0];

test('When the document has a thumbnail, it gets its bytes, version and thumbnail', () => {
  expect(pageDocument(withThumbnail, base64('{"icontents_title":"서울 맛집"}'))).toEqual({
    id: '7',
    dockey: 'k7',
    version: '2',
    doc: Buffer.from('{"icontents_title":"서울 맛집"}', 'utf8'),
    thumbnail: {
      size: '130X130',
      thumbnailKey: 'key',
      sourceUrl: 'http://x/a.jpg',
      sourceWidth: 640,
      sourceHeight: 480,
    },
  });
});

test('When the document has no thumbnail (no size), its thumbnail is null', () => {
  expect(pageDocument(without, base64('{}'))).toEqual({
    id: '9',
    dockey: 'k9',
    version: '1',
    doc: Buffer.from('{}'),
    thumbnail: null,
  });
});
