import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { FEED_ERRORS, type FeedFormat } from '@hub/contracts';
import { DatabaseUnavailableError, ServiceError, type Logger } from '@hub/service-kit';
import { element, textElement, XML_DECLARATION } from '../render/xml-markup';
import type { Negotiator } from './negotiation';

export const ERROR_CONTENT_TYPES: Record<FeedFormat, string> = {
  json: 'application/json;charset=utf-8',
  xml: 'application/xml;charset=utf-8',
};

/**
 * The one error body, in the negotiated format:
 * JSON `{"error":{"status":401,"message":"..."}}` or
 * XML `<error><status>401</status><message>...</message></error>`.
 */
export function errorBody(format: FeedFormat, status: number, message: string): string {
  if (format === 'json') return JSON.stringify({ error: { status, message } });
  return (
    XML_DECLARATION +
    element('error', {}, textElement('status', String(status)) + textElement('message', message))
  );
}

export function writeError(res: ServerResponse, err: ServiceError, format: FeedFormat): void {
  const body = Buffer.from(errorBody(format, err.status, err.text), 'utf8');
  res.writeHead(err.status, {
    ...err.headers,
    'Content-Type': ERROR_CONTENT_TYPES[format],
    'Content-Length': String(body.length),
    'Cache-Control': 'no-store',
    Vary: 'Accept',
  });
  res.end(body);
}

export const notFoundHandler: RequestHandler = (_req, _res, next) =>
  next(new ServiceError(FEED_ERRORS.notFound));

function withDetail(row: { status: number; text: string }, detail: string): ServiceError {
  return new ServiceError({ status: row.status, text: `${row.text}: ${detail}` });
}

/**
 * Anything thrown → a ServiceError. What a client can cause (bodies too large, bad JSON,
 * unsupported charsets, undecodable paths) stays a 4xx; only our own faults are 500s.
 */
export function toServiceError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  const e = err as { type?: string; status?: number; statusCode?: number } | undefined;
  switch (e?.type) {
    case 'entity.too.large':
      return new ServiceError(FEED_ERRORS.payloadTooLarge, { cause: err });
    case 'entity.parse.failed':
      return withDetail(FEED_ERRORS.invalidParameter, 'the body is not valid JSON');
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new ServiceError(FEED_ERRORS.unsupportedMediaType, { cause: err });
    case undefined: // not an error of body-parser's
    default: // nor one of these: the checks below decide
      break;
  }
  if (isDatabaseUnavailable(err)) return new ServiceError(FEED_ERRORS.unavailable, { cause: err });
  const status = e?.status ?? e?.statusCode;
  if (err instanceof URIError || (typeof status === 'number' && status >= 400 && status < 500)) {
    return new ServiceError(FEED_ERRORS.invalidParameter, { cause: err });
  }
  return new ServiceError(FEED_ERRORS.serverError, { cause: err });
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/**
 * The database is down, restarting or full: 503 (the spec's "server error" row), not 500.
 * The pool reports a wait for a connection that timed out, or a connection lost, as a
 * DatabaseUnavailableError; the server's own refusals and socket failures by their codes.
 */
function isDatabaseUnavailable(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true;
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && UNAVAILABLE_CODES.has(code);
}

/** The one error handler: every failure becomes one body in the negotiated format. */
export function errorHandler(logger: Logger, negotiator: Negotiator): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const e = toServiceError(err);
    if (e.status >= 500) logger.error({ reqId: req.id, err }, 'request failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    writeError(res, e, negotiator.errorFormat(req.headers.accept));
  };
}
