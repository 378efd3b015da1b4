import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { FEED_CATEGORY_CODES, FEED_ERRORS, isFeedCategory, type FeedFormat } from '@hub/contracts';
import { ServiceError } from '@hub/service-kit';
import { invalidField } from '../domain/item-input';
import type { FeedKey } from '../store/item-types';
import { authenticationFailed, findToken, plainBearerToken, type Principal } from './auth';
import type { HttpContext } from './context';
import type { Negotiator } from './negotiation';

/**
 * The checks of a read, in the order of FEED_CHECK_ORDER (@hub/contracts), one function per
 * step and named after it: the route (the Express router, or the fast path's table of
 * paths), then checkToken (401), checkAccept (422; 404 for another version), checkCategory
 * (422). checkRead runs them in that order, and it is the one both the fast path and the
 * Express route call; `test/check-order.test.ts` pins its order to the table.
 *
 * Synchronous, and it returns the error to answer instead of throwing it: the fast path
 * falls back to Express on any error (Express then answers it). With a remembered token and
 * a known Accept header it allocates nothing: the answer is one of the ReadTargets built
 * here at load.
 */

/** What a read that passed its checks answers with. */
export interface ReadTarget {
  readonly feed: FeedKey;
  readonly format: FeedFormat;
}

const TARGETS = Object.fromEntries(
  (['all', ...FEED_CATEGORY_CODES] as const).map((feed) => [
    feed,
    { xml: { feed, format: 'xml' }, json: { feed, format: 'json' } },
  ]),
) as Record<FeedKey, Record<FeedFormat, ReadTarget>>;

/**
 * The checks of a read (after the route). `rawQuery` is the text after `?` in the URL;
 * `categoryCode` the path's category (undefined for /hub/contents); `now` the clock's time.
 */
export function checkRead(
  context: HttpContext,
  req: IncomingMessage,
  rawQuery: string | undefined,
  categoryCode: string | undefined,
  now: number,
): ReadTarget | ServiceError {
  const principal = checkToken(context, req, rawQuery, now);
  if (principal instanceof ServiceError) return principal;
  const format = checkAccept(context.negotiator, req.headers.accept);
  if (typeof format !== 'string') return format;
  const feed = checkCategory(categoryCode);
  if (typeof feed !== 'string') return feed;
  return TARGETS[feed][format];
}

/**
 * The token (reads and writes): its principal, or the 401 to answer. The one common shape,
 * `Authorization: Bearer <token>` alone, is looked up without a regex first (a remembered
 * token costs one map lookup); anything else, and a token that does not verify as written,
 * is judged by findToken (which also trims, and refuses a token given twice).
 */
export function checkToken(
  context: HttpContext,
  req: IncomingMessage,
  rawQuery: string | undefined,
  now: number,
): Principal | ServiceError {
  const { auth } = context;
  const { headers } = req;
  const plain = plainBearerToken(headers, rawQuery);
  let refused: ServiceError | undefined;
  if (plain !== undefined) {
    const principal = auth.cached(plain, now) ?? auth.check(plain);
    if (!(principal instanceof ServiceError)) return principal;
    refused = principal;
  }
  const found = findToken(headers, req.method ?? 'GET', rawQuery);
  if (found.kind === 'missing') return authenticationFailed();
  if (found.kind === 'invalid') return authenticationFailed(found.reason, found.error);
  // the same token already refused: no second verification
  if (refused !== undefined && found.token === plain) return refused;
  return auth.check(found.token);
}

/** The format Accept asks for, or the 422 / 404 to answer. */
export function checkAccept(
  negotiator: Negotiator,
  header: IncomingHttpHeaders['accept'],
): FeedFormat | ServiceError {
  const result = negotiator.accept(header);
  switch (result.kind) {
    case 'ok':
      return result.format;
    case 'missing':
      return invalidField('the Accept header is required');
    case 'unsupported-version':
      return new ServiceError(FEED_ERRORS.notFound);
    case 'unusable':
      return invalidField(
        `Accept names no supported media type (use ${negotiator.mediaTypes.xml} or ${negotiator.mediaTypes.json})`,
      );
  }
}

/** The feed of the path's category code (none: every category), or the 422 to answer. */
export function checkCategory(categoryCode: string | undefined): FeedKey | ServiceError {
  if (categoryCode === undefined) return 'all';
  if (!isFeedCategory(categoryCode))
    return invalidField(`category_code must be one of ${FEED_CATEGORY_CODES.join(', ')}`);
  return categoryCode;
}

/** The text after `?` in a request's URL, if any. */
export function rawQuery(url: string | undefined): string | undefined {
  const at = url?.indexOf('?') ?? -1;
  return at < 0 ? undefined : url!.slice(at + 1);
}
