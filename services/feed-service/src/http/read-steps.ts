import type { IncomingMessage } from 'node:http';
import { FEED_CATEGORY_CODES, FEED_ERRORS, isFeedCategory, type FeedFormat } from '@hub/contracts';
import { ServiceError } from '@hub/service-kit';
import { invalidField } from '../domain/item-input';
import type { FeedKey } from '../store/item-types';
import { authenticationFailed, findToken, type Principal } from './auth';
import type { HttpContext } from './context';

/**
 * The checks of a read, in the order both paths apply them: token (401), Accept (422 /
 * 404 for another version), category (422). The fast path runs the cheap, cached
 * versions and falls back to Express whenever one of them is not a plain success.
 */

export function rawQuery(url: string | undefined): string | undefined {
  const at = url?.indexOf('?') ?? -1;
  return at < 0 ? undefined : url!.slice(at + 1);
}

export function authenticateRequest(context: HttpContext, req: IncomingMessage): Principal {
  const found = findToken(req.headers, req.method ?? 'GET', rawQuery(req.url));
  if (found.kind === 'missing') throw authenticationFailed();
  if (found.kind === 'invalid') throw authenticationFailed(found.reason, found.error);
  return context.auth.verify(found.token);
}

export function negotiateFormat(context: HttpContext, req: IncomingMessage): FeedFormat {
  const { negotiator } = context;
  const result = negotiator.accept(req.headers.accept);
  switch (result.kind) {
    case 'ok':
      return result.format;
    case 'missing':
      throw invalidField('the Accept header is required');
    case 'unsupported-version':
      throw new ServiceError(FEED_ERRORS.notFound);
    case 'unusable':
      throw invalidField(
        `Accept names no supported media type (use ${negotiator.mediaTypes.xml} or ${negotiator.mediaTypes.json})`,
      );
  }
}

export function feedKeyOf(categoryCode: string | undefined): FeedKey {
  if (categoryCode === undefined) return 'all';
  if (!isFeedCategory(categoryCode))
    throw invalidField(`category_code must be one of ${FEED_CATEGORY_CODES.join(', ')}`);
  return categoryCode;
}
