import type { ErrorRequestHandler, RequestHandler } from 'express';
import { FEED_ERRORS } from '@hub/contracts';
import { ServiceError, type Logger } from '@hub/service-kit';

export const notFoundHandler: RequestHandler = (_req, _res, next) => next(new ServiceError(FEED_ERRORS.notFound));

/** The one error handler: every failure becomes a ServiceError body. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const e = err instanceof ServiceError ? err : new ServiceError(FEED_ERRORS.serverError, { cause: err });
    if (e.status >= 500) logger.error({ reqId: req.id, err }, 'request failed');
    res.status(e.status).json({ error: { status: e.status, message: e.text } });
  };
}
