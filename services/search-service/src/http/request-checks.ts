import {
  CHECK_ORDER,
  isApiKeyFormat,
  isCollectionId,
  parseReturnType,
  SEARCH_ERRORS,
  type ContractError,
  type SearchReturnType,
} from '@hub/contracts';
import { check, fail, step } from '../domain/steps';
import { apiKeyMatches, type Collection, type CollectionDirectory } from '../store/collections';
import type { CallLimiter } from './call-limiter';
import type { RequestParams } from './params';

export type Operation = 'add' | 'update' | 'fieldUpdate' | 'delete' | 'search' | 'status';
type FormatOperation = 'search' | 'status';

export interface CheckDeps {
  collections: CollectionDirectory;
  callLimiter: CallLimiter;
}

/** A request going through the checks; a check fills in what the later ones read. */
interface Checking {
  readonly deps: CheckDeps;
  readonly op: Operation;
  readonly cid: string;
  readonly params: RequestParams;
  /** the {format} path segment of search and status */
  readonly formatSegment: string | undefined;
  apikey?: string;
  collection?: Collection | null;
  format?: SearchReturnType;
}

type Check = (request: Checking) => void | Promise<void>;

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

/**
 * The check answering each error of the contract's steps that come before the operation's own
 * parameters: the same for every operation. The apikey check reads the collection the cid
 * check found, so those two keep their relative order.
 */
const CHECKS = new Map<ContractError, Check>([
  [
    COMMON_ERRORS.apikeyNull,
    (request) => {
      request.apikey = request.params.get('apikey')?.trim();
      if (!request.apikey) fail(COMMON_ERRORS.apikeyNull);
    },
  ],
  [
    COMMON_ERRORS.cidInvalid,
    async (request) => {
      if (!isCollectionId(request.cid)) fail(COMMON_ERRORS.cidInvalid);
      request.collection = await step(lookupFailure(request.op), () =>
        request.deps.collections.get(request.cid),
      );
      if (!request.collection) fail(COMMON_ERRORS.cidInvalid);
    },
  ],
  [
    COMMON_ERRORS.apikeyInvalid,
    (request) => {
      // compared in constant time
      if (!isApiKeyFormat(request.apikey) || !apiKeyMatches(request.collection!, request.apikey))
        fail(COMMON_ERRORS.apikeyInvalid);
    },
  ],
  [
    COMMON_ERRORS.callLimitReached,
    async (request) => {
      if (request.op === 'status') return; // status is not counted
      const { id, maxApiCalls } = request.collection!;
      const { callLimiter } = request.deps;
      const admitted = await step(counterFailure(request.op), () =>
        callLimiter.admit(id, maxApiCalls),
      );
      if (!admitted) fail(COMMON_ERRORS.callLimitReached); // a refused call is not counted
    },
  ],
  [
    SEARCH_ERRORS.search.returnTypeInvalid,
    (request) => {
      if (request.formatSegment !== undefined)
        request.format = check(parseReturnType(request.formatSegment));
    },
  ],
]);

/** Those checks in the order of CHECK_ORDER: the table decides which answers first. */
const ORDERED_CHECKS: readonly Check[] = [
  ...new Set(CHECK_ORDER.flatMap((s) => s.errors).flatMap((e) => CHECKS.get(e) ?? [])),
];
if (ORDERED_CHECKS.length !== CHECKS.size) throw new Error('CHECK_ORDER misses a request check');

export interface CheckedRequest<Format> {
  collection: Collection;
  /** search and status: the {format} asked for */
  format: Format;
}

/**
 * The checks every operation starts with, in CHECK_ORDER's order: apikey present → collection
 * id well-formed and known → apikey is that collection's key → API call limit (not for
 * status) → for search and status the {format} segment. The operation's own parameters and
 * state come after, in its use case.
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
  const checking: Checking = {
    deps,
    op,
    cid: request.cid,
    params: request.params,
    formatSegment: request.format,
  };
  for (const run of ORDERED_CHECKS) {
    const pending = run(checking);
    if (pending) await pending; // only the checks that read the store wait
  }
  return { collection: checking.collection!, format: checking.format };
}
