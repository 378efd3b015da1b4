import {
  CHECK_ORDER,
  parseDockey,
  parseDoc,
  parseFieldUpdate,
  SEARCH_ERRORS,
  type ContractError,
} from '../src';
import { errorOf } from './helpers';

const { common: C, add: A, update: U, fieldUpdate: F } = SEARCH_ERRORS;

/** The add route as the services chain it: dockey, then doc (force never fails). */
function addRequest(
  dockey: string | undefined,
  doc: string | undefined,
): ContractError | undefined {
  const key = parseDockey(dockey, 'add');
  if (!key.ok) return key.error;
  return errorOf(parseDoc(doc));
}

describe('CHECK_ORDER', () => {
  it('numbers its steps 1, 2, 3, ... in order', () => {
    expect(CHECK_ORDER.map((s) => s.step)).toEqual(CHECK_ORDER.map((_s, i) => i + 1));
  });

  it('starts with apikey null, cid, apikey invalid, call limit, return type', () => {
    expect(CHECK_ORDER.slice(0, 5).map((s) => s.errors)).toEqual([
      [C.apikeyNull],
      [C.cidInvalid],
      [C.apikeyInvalid],
      [C.callLimitReached],
      [SEARCH_ERRORS.search.returnTypeInvalid],
    ]);
  });

  it('puts the operation parameters in step 6 in the order of the parsers', () => {
    const step6 = CHECK_ORDER[5]!;
    expect(step6.byOperation?.add?.slice(0, 5)).toEqual([
      A.invalidEncoding,
      A.dockeyNull,
      A.dockeyInvalid,
      A.docNull,
      A.docEmpty,
    ]);
    expect(step6.byOperation?.update?.[1]).toBe(U.dockeyNull);
    expect(step6.byOperation?.fieldUpdate?.slice(0, 4)).toEqual([
      F.dockeyNull,
      F.dockeyEmpty,
      F.dockeyInvalid,
      F.fieldnameNull,
    ]);
  });

  it('puts state checks (already exists, then index max) after the parameters', () => {
    expect(CHECK_ORDER[6]!.byOperation?.add).toEqual([A.alreadyExists, A.indexMaxReached]);
  });

  it('mentions every error row of the spec in some step', () => {
    const mentioned = new Set(CHECK_ORDER.flatMap((s) => s.errors));
    const missing = Object.values(SEARCH_ERRORS)
      .flatMap((t): ContractError[] => Object.values(t))
      .filter((e) => !mentioned.has(e))
      .map((e) => `${e.operation}: ${e.text}`);
    // 503s that only one route raises at processing time need not be listed twice
    expect(missing).toEqual([
      'search: retrieve collection info exception',
      'delete: retrieve collection info exception',
      'delete: retrieve user info fail',
      'update: retrieve user info fail',
      'update: retrieve collection info exception',
      'update: database exception',
      'fieldUpdate: retrieve user info fail',
      'fieldUpdate: retrieve collection info exception',
    ]);
  });
});

describe('a request breaking two rules gets the earlier one', () => {
  it('When dockey is missing and doc is missing, add answers 400 dockey is null', () => {
    expect(addRequest(undefined, undefined)).toBe(A.dockeyNull);
  });

  it('When dockey is too long and doc is not JSON, add answers 404 dockey is invalid', () => {
    expect(addRequest('k'.repeat(1025), 'nope')).toBe(A.dockeyInvalid);
  });

  it('When doc is not JSON and has 36 fields, parseDoc answers doc json parsing fail', () => {
    const fields = Array.from({ length: 36 }, (_v, i) => `"contents_f${i}":"v"`).join(',');
    expect(errorOf(parseDoc(`{${fields}`))).toBe(A.docJsonParsingFail);
  });

  it('When doc has a NUL and 36 fields, parseDoc answers the UTF-8 error', () => {
    const fields = Array.from({ length: 36 }, (_v, i) => `"contents_f${i}":"\\u0000"`).join(',');
    expect(errorOf(parseDoc(`{${fields}}`))).toBe(A.docInvalidUtf8);
  });

  it('When doc has a bad field name and no title, parseDoc answers document fieldname is invalid', () => {
    expect(errorOf(parseDoc('{"bad name":"x","score_regdate":1}'))).toBe(A.fieldnameInvalid);
  });

  it('When doc has a too big date and an empty body, parseDoc answers document date values is too big', () => {
    const raw = '{"icontents_title":"t","icontents_body":"","score_regdate":1700000000000}';
    expect(errorOf(parseDoc(raw))).toBe(A.dateTooBig);
  });

  it('When field update has a blank dockey and no fieldname, the dockey answers (404 dockey is empty)', () => {
    const key = parseDockey('', 'fieldUpdate');
    const error = key.ok ? errorOf(parseFieldUpdate({})) : key.error;
    expect(error).toBe(F.dockeyEmpty);
  });

  it('When fieldname is a contents field and fieldvalue is missing, fieldtype is invalid answers', () => {
    expect(errorOf(parseFieldUpdate({ fieldname: 'contents_x' }))).toBe(F.fieldtypeInvalid);
  });
});
