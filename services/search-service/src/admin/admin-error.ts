import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '@hub/service-kit';

/** An answer of the admin API other than 2xx: status and a JSON {"error": message}. */
export class AdminError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The admin API's one error handler: an AdminError answers as it says; a 4xx of the body
 * parser answers `bad request` (or `body too large`); anything else is a 500, logged.
 */
export function adminErrorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    let status = 500;
    let message = 'internal error';
    if (err instanceof AdminError) ({ status, message } = err);
    else {
      const s = (err as { status?: unknown } | null)?.status;
      if (typeof s === 'number' && s >= 400 && s < 500) {
        status = s;
        message = s === 413 ? 'body too large' : 'bad request';
      }
    }
    if (status >= 500) logger.error({ reqId: req.id, err }, 'admin request failed');
    if (status === 401) res.set('WWW-Authenticate', 'Bearer');
    res.status(status).json({ error: message });
  };
}
