import type { ErrorRequestHandler, RequestHandler } from 'express';
import { SEARCH_ERRORS } from '@hub/contracts';
import { ServiceError, type Logger } from '@hub/service-kit';

export const notFoundHandler: RequestHandler = (_req, res) => {
  res.status(404).type('text/plain; charset=utf-8').send('not found');
};

/** The one error handler: contract errors answer their status and exact text as text/plain. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const e = err instanceof ServiceError ? err : new ServiceError(SEARCH_ERRORS.common.occurException, { cause: err });
    if (e.status >= 500) logger.error({ reqId: req.id, err }, 'request failed');
    res.status(e.status).set(e.headers).type('text/plain; charset=utf-8').send(e.text);
  };
}
