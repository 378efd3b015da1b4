import { isIntegerText, parseJsonExact, type JsonPath } from '../json/exact-json.js';
import type { SearchResult } from './search-types.js';

/**
 * A search result's JSON: `score_*` values of the documents become bigint (their exact
 * digits), every other number a JavaScript number (categories are int32, the envelope small).
 */
export function parseSearchResult(text: string): SearchResult {
  return parseJsonExact(text, (source, path) =>
    isScoreValue(path) && isIntegerText(source) ? BigInt(source) : Number(source),
  ) as SearchResult;
}

/** docs[i].score_* */
function isScoreValue(path: JsonPath): boolean {
  const field = path[2];
  return (
    path.length === 3 &&
    path[0] === 'docs' &&
    typeof field === 'string' &&
    field.startsWith('score_')
  );
}
