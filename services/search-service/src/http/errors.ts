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

/** The one error handler: contract errors answer their status and exact text as text/plain. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    let e: ServiceError;
    if (err instanceof ServiceError) e = err;
    else {
      const client = clientError(err);
      e = new ServiceError(client ?? SEARCH_ERRORS.common.occurException, { cause: err });
    }
    if (e.status >= 500) logger.error({ reqId: req.id, err: e.cause ?? err }, e.text);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.status(e.status).set(e.headers).type('text/plain; charset=utf-8').send(e.text);
  };
}
