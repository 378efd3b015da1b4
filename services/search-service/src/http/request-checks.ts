import {
  isApiKeyFormat,
  isCollectionId,
  parseReturnType,
  SEARCH_ERRORS,
  type ContractError,
  type HighlightParamsInput,
  type SearchReturnType,
} from '@hub/contracts';
import { check, fail, step } from '../domain/steps';
import type { AddInput } from '../domain/add-document';
import type { DeleteInput } from '../domain/delete-document';
import type { SearchInput } from '../domain/search';
import type { UpdateInput } from '../domain/update-document';
import type { FieldUpdateInput } from '../domain/update-field';
import { apiKeyMatches, type Collection, type CollectionDirectory } from '../store/collections';
import type { CallLimiter } from './call-limiter';
import type { RequestParams } from './params';

/**
 * The contracts' check order (`CHECK_ORDER`) at the HTTP edge, one named function per step.
 * `checkRequest` calls steps 1–5, the checks every operation starts with, in the table's order:
 *  1. apikeyGiven: apikey present (not missing, empty or blank) → 400 apikey is null
 *  2. knownCollection: {cid} is 8 letters/digits and a collection → 404 cid is invalid
 *  3. keyOfCollection: apikey is that collection's key → 401 apikey is invalid
 *  4. withinCallLimit: the call is admitted (not for status) → 406 api call limit reached
 *  5. returnType: {format} of search and status is xml or json → 400 return type is invalid
 * then each route calls its step 6, the operation's parameters (addParams, updateParams,
 * deleteParams, fieldUpdateParams, searchParams: the values its use case reads; add and update
 * answer `invalid encoding` here), and its use case, which parses them first thing
 * (parseDockey, parseDoc, parseSearchParams …) and then checks state (step 7).
 * test/errors-order-and-keys.test.ts pins this order to CHECK_ORDER.
 */

export type Operation = 'add' | 'update' | 'fieldUpdate' | 'delete' | 'search' | 'status';
type FormatOperation = 'search' | 'status';

export interface CheckDeps {
  collections: CollectionDirectory;
  callLimiter: CallLimiter;
}

const COMMON_ERRORS = SEARCH_ERRORS.common;

/** The 503 a route answers when the collection cannot be read. */
function lookupFailure(op: Operation): ContractError {
  return op === 'status'
    ? SEARCH_ERRORS.status.makeStatusResultFail
    : SEARCH_ERRORS[op].collectionInfoException;
}

/** The 503 a route answers when the API call counter cannot be read. */
function counterFailure(op: Exclude<Operation, 'status'>): ContractError {
  return op === 'search'
    ? SEARCH_ERRORS.search.collectionInfoException
    : SEARCH_ERRORS[op].userInfoFail;
}

/** Step 1: the apikey, trimmed; missing, empty or blank answers `apikey is null`. */
function apikeyGiven(params: RequestParams): string {
  const apikey = params.get('apikey')?.trim();
  if (!apikey) fail(COMMON_ERRORS.apikeyNull);
  return apikey;
}

/** Step 2: the collection of {cid}; not 8 letters/digits, or unknown, answers `cid is invalid`. */
async function knownCollection(deps: CheckDeps, op: Operation, cid: string): Promise<Collection> {
  if (!isCollectionId(cid)) fail(COMMON_ERRORS.cidInvalid);
  const collection = await step(lookupFailure(op), () => deps.collections.get(cid));
  if (!collection) fail(COMMON_ERRORS.cidInvalid);
  return collection;
}

/** Step 3: a key that is not the collection's answers `apikey is invalid` (constant time). */
function keyOfCollection(collection: Collection, apikey: string): void {
  if (!isApiKeyFormat(apikey) || !apiKeyMatches(collection, apikey))
    fail(COMMON_ERRORS.apikeyInvalid);
}

/**
 * Step 4: admits and counts the call, or answers `api call limit reached` (a refused call is
 * not counted). Status never comes here: it is not counted.
 */
async function withinCallLimit(
  deps: CheckDeps,
  op: Exclude<Operation, 'status'>,
  collection: Collection,
): Promise<void> {
  const admitted = await step(counterFailure(op), () =>
    deps.callLimiter.admit(collection.id, collection.maxApiCalls),
  );
  if (!admitted) fail(COMMON_ERRORS.callLimitReached);
}

/** Step 5: the {format} of search and status; not xml or json answers `return type is invalid`. */
function returnType(segment: string): SearchReturnType {
  return check(parseReturnType(segment));
}

export interface CheckedRequest<Format> {
  collection: Collection;
  /** search and status: the {format} asked for */
  format: Format;
}

/**
 * Steps 1–5 of CHECK_ORDER for one request, in order (see the top of this module); the
 * operation's own parameters and state come after, in its route and use case.
 */
export async function checkRequest(
  deps: CheckDeps,
  op: FormatOperation,
  request: { cid: string; params: RequestParams; format: string },
): Promise<CheckedRequest<SearchReturnType>>;
export async function checkRequest(
  deps: CheckDeps,
  op: Exclude<Operation, FormatOperation>,
  request: { cid: string; params: RequestParams },
): Promise<CheckedRequest<undefined>>;
export async function checkRequest(
  deps: CheckDeps,
  op: Operation,
  request: { cid: string; params: RequestParams; format?: string },
): Promise<CheckedRequest<SearchReturnType | undefined>> {
  const apikey = apikeyGiven(request.params);
  const collection = await knownCollection(deps, op, request.cid);
  keyOfCollection(collection, apikey);
  if (op !== 'status') await withinCallLimit(deps, op, collection);
  const format = request.format === undefined ? undefined : returnType(request.format);
  return { collection, format };
}

/**
 * Step 6 at the HTTP edge: the parameters each use case parses first thing. For add and
 * update, a value that is not valid UTF-8 (or a body of another charset) answers `invalid
 * encoding` before the parsers; other operations let the parsers answer it with the
 * parameter's own error (see params.ts).
 */
export function addParams(params: RequestParams): AddInput {
  if (params.invalid('dockey', 'force', 'doc')) fail(SEARCH_ERRORS.add.invalidEncoding);
  return { dockey: params.get('dockey'), force: params.get('force'), doc: params.get('doc') };
}

export function updateParams(params: RequestParams): UpdateInput {
  if (params.invalid('dockey', 'doc')) fail(SEARCH_ERRORS.update.invalidEncoding);
  return { dockey: params.get('dockey'), doc: params.get('doc') };
}

export function deleteParams(params: RequestParams): DeleteInput {
  return { dockey: params.get('dockey') };
}

export function fieldUpdateParams(params: RequestParams): FieldUpdateInput {
  return {
    dockey: params.get('dockey'),
    fieldname: params.get('fieldname'),
    fieldvalue: params.get('fieldvalue'),
  };
}

export function searchParams(params: RequestParams): SearchInput {
  return {
    q: params.get('q'),
    start: params.get('start'),
    len: params.get('len'),
    ca: params.get('ca'),
    ex_ca: params.get('ex_ca'),
    sort: params.get('sort'),
    startdate: params.get('startdate'),
    enddate: params.get('enddate'),
    facet: params.get('facet'),
    prefix: params.get('prefix'),
  };
}

/** The highlight parameters (beyond the spec), read after every parameter of the spec. */
export function highlightParams(params: RequestParams): HighlightParamsInput {
  return { hl: params.get('hl'), hl_pre: params.get('hl_pre'), hl_post: params.get('hl_post') };
}
