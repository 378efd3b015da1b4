import { FEED_ERRORS } from '../contracts.js';
import {
  FeedError,
  FeedLinkConflictError,
  UnexpectedResponseError,
  type FeedErrorCode,
  type HubClientError,
} from '../errors.js';

/**
 * The error of a feed-service answer. The body is `{"error":{"status","message"}}`; the
 * message is a row's text, maybe followed by `: ` and a detail. A 409 carries `Location`.
 */
export function feedErrorOf(status: number, body: string, location: string | null): HubClientError {
  const message = errorMessage(body);
  const code = (Object.keys(FEED_ERRORS) as FeedErrorCode[]).find((key) => {
    const row = FEED_ERRORS[key];
    return (
      row.status === status &&
      message !== undefined &&
      (message === row.text || message.startsWith(`${row.text}: `))
    );
  });
  if (code === undefined || message === undefined) {
    return new UnexpectedResponseError(`feed-service answered ${status}`, status, body);
  }
  if (code === 'linkConflict')
    return new FeedLinkConflictError(message, body, location ?? undefined);
  return new FeedError(code, message, body);
}

function errorMessage(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } } | null;
    const message = parsed?.error?.message;
    return typeof message === 'string' ? message : undefined;
  } catch {
    return undefined;
  }
}
