import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { SEARCH_ERRORS, SEARCH_HTTP_ERRORS } from '@hub/contracts';
import { ServiceError, type ContractErrorLike, type Logger } from '@hub/service-kit';

/**
 * HTTP-level answers the spec has no row for (the request is not one of the service's
 * operations, its body cannot be read, or its collection has too many searches waiting): the
 * contracts' table, listed in the README.
 */
export const HTTP_ERRORS = SEARCH_HTTP_ERRORS;

export const notFoundHandler: RequestHandler = (_req, _res, next) => {
  next(new ServiceError(HTTP_ERRORS.notFound));
};

/** A client error raised by Express or body-parser (bad path escape, oversized body, ...). */
function clientError(err: unknown): ContractErrorLike | null {
  const status = (err as { status?: unknown; statusCode?: unknown } | null)?.status;
  if (typeof status !== 'number' || status < 400 || status > 499) return null;
  if (status === 413) return HTTP_ERRORS.payloadTooLarge;
  if (status === 415) return HTTP_ERRORS.unsupportedMediaType;
  if (status === 404) return HTTP_ERRORS.notFound;
  return HTTP_ERRORS.badRequest;
}

/**
 * What a failure answers: a contract error its own status and text; a client error raised by
 * Express or body-parser its HTTP row; anything else 500 `occur exception` (logged).
 */
export function serviceErrorOf(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  const client = clientError(err);
  return new ServiceError(client ?? SEARCH_ERRORS.common.occurException, { cause: err });
}

/** A failure's answer, as text/plain (the Express handler and the fast path write it alike). */
export function writeError(res: ServerResponse, e: ServiceError): void {
  const body = Buffer.from(e.text, 'utf8');
  res.writeHead(e.status, {
    ...e.headers,
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': body.length,
  });
  res.end(body);
}

/** Logs a server-side failure (a 5xx) with the request's id and its cause. */
export function logFailure(logger: Logger, reqId: string, e: ServiceError, err: unknown): void {
  if (e.status >= 500) logger.error({ reqId, err: e.cause ?? err }, e.text);
}

/** The one error handler: contract errors answer their status and exact text as text/plain. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const e = serviceErrorOf(err);
    logFailure(logger, req.id, e, err);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    writeError(res, e);
  };
}
