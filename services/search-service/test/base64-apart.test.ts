import { pairedWithBase64Apart } from '../src/index/postgres/base64-bytes';

/**
 * A snapshot statement's entries come as JSON and their bytes as base64 texts apart, joined by
 * commas in the same order (src/index/postgres/base64-bytes.ts pairedWithBase64Apart); the
 * documents and the posting lists of a search are read that way.
 */

test('When the texts are as many as the entries, each entry gets its own text, in order', () => {
  expect(pairedWithBase64Apart(['a', 'b', 'c'], 'QQ==,Qg==\nQw==,')).toEqual([
    ['a', 'QQ=='],
    ['b', 'Qg==\nQw=='],
    ['c', ''],
  ]);
});

test('When an entry has no bytes, its text is empty and it keeps its place', () => {
  expect(pairedWithBase64Apart([1, 2], ',QQ==')).toEqual([
    [1, ''],
    [2, 'QQ=='],
  ]);
  expect(pairedWithBase64Apart([1], '')).toEqual([[1, '']]);
});

test('When the texts are not as many as the entries, none is paired: the caller reads them itself', () => {
  expect(pairedWithBase64Apart(['a', 'b'], 'QQ==')).toEqual([]);
  expect(pairedWithBase64Apart(['a'], 'QQ==,Qg==')).toEqual([]);
  expect(pairedWithBase64Apart(['a'], null)).toEqual([]);
  expect(pairedWithBase64Apart(null, 'QQ==')).toEqual([]);
});

test('When there are no entries and no texts (nothing asked, or nothing found), there are none', () => {
  expect(pairedWithBase64Apart(null, null)).toEqual([]);
  expect(pairedWithBase64Apart([], null)).toEqual([]);
});
