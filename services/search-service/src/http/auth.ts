import { isApiKeyFormat, isCollectionId, SEARCH_ERRORS, type ContractError } from '@hub/contracts';
import { apiKeyMatches, type Collection, type CollectionDirectory } from '../store/collections';
import { fail, step } from '../domain/steps';
import type { CallLimiter } from './call-limiter';
import type { RequestParams } from './params';

export type Operation = 'add' | 'update' | 'fieldUpdate' | 'delete' | 'search' | 'status';

const C = SEARCH_ERRORS.common;

/** The 503 a route answers when the collection cannot be read (step 2). */
function lookupFailure(op: Operation): ContractError {
  return op === 'status'
    ? SEARCH_ERRORS.status.makeStatusResultFail
    : SEARCH_ERRORS[op].collectionInfoException;
}

/** The 503 a route answers when the API call counter cannot be read (step 4). */
function counterFailure(op: Exclude<Operation, 'status'>): ContractError {
  return op === 'search'
    ? SEARCH_ERRORS.search.collectionInfoException
    : SEARCH_ERRORS[op].userInfoFail;
}

/**
 * Steps 1–4 of the contract's CHECK_ORDER for every operation: apikey present → collection id
 * well-formed and known → apikey is that collection's key (constant-time) → API call limit
 * (not for status; a refused call is not counted).
 */
export async function authorize(
  deps: { collections: CollectionDirectory; callLimiter: CallLimiter },
  op: Operation,
  cid: string,
  params: RequestParams,
): Promise<Collection> {
  const apikey = params.get('apikey')?.trim();
  if (!apikey) fail(C.apikeyNull);
  if (!isCollectionId(cid)) fail(C.cidInvalid);
  const collection = await step(lookupFailure(op), () => deps.collections.get(cid));
  if (!collection) fail(C.cidInvalid);
  if (!isApiKeyFormat(apikey) || !apiKeyMatches(collection, apikey)) fail(C.apikeyInvalid);
  if (op !== 'status') {
    const admitted = await step(counterFailure(op), () =>
      deps.callLimiter.admit(collection.id, collection.maxApiCalls),
    );
    if (!admitted) fail(C.callLimitReached);
  }
  return collection;
}
