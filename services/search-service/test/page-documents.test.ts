import { pageDocumentsOf, type PageDocumentJson } from '../src/store/result-documents';

/**
 * The documents a search reads with its snapshot: their columns as JSON and their docs' base64
 * apart, in the same order (migrations/1733500000000_search-snapshot-base64-apart.sql).
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

test('When the snapshot’s documents and their base64 pair up, each gets its bytes, version and thumbnail', () => {
  const docs = pageDocumentsOf(
    [withThumbnail, without],
    [base64('{"icontents_title":"서울 맛집"}'), base64('{}')],
  );
  expect([...docs.keys()]).toEqual(['7', '9']);
  expect(docs.get('7')).toEqual({
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
  expect(docs.get('9')).toMatchObject({ doc: Buffer.from('{}'), thumbnail: null });
});

test('When the base64 texts are not as many as the documents, none is taken: the search reads its page itself', () => {
  expect(pageDocumentsOf([withThumbnail, without], [base64('{}')]).size).toBe(0);
});

test('When the snapshot found none of the documents asked, there are none', () => {
  expect(pageDocumentsOf([], []).size).toBe(0);
});
