import type { RequestHandler } from 'express';
import { ServiceError, type ContractErrorLike } from './errors';

/**
 * A path's methods: any other one answers `error` (the service's 405 row) with an Allow header
 * naming them. Mount it with `router.all(path, …)` before the path's handlers, so the body of
 * a refused request is never read. HEAD must be listed when GET is (Express answers HEAD with
 * the GET handler).
 */
export function allowMethods(methods: readonly string[], error: ContractErrorLike): RequestHandler {
  const allowed = new Set(methods);
  const allow = methods.join(', ');
  return (req, _res, next) => {
    if (allowed.has(req.method)) next();
    else next(new ServiceError(error, { headers: { Allow: allow } }));
  };
}
