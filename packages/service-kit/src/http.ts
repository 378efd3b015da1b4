import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Router } from 'express';
import { errorText } from './error-text';
import type { Logger } from './logger';
import type { Metrics } from './metrics';
import { createRequestIds } from './request-id';

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
  }
}

/** Paths of the probes and the metrics scrape: asked every few seconds, so logged at debug. */
export const PROBE_PATHS: readonly string[] = ['/healthz', '/readyz', '/metrics'];

/**
 * What every request of a service gets, whichever path answers it (Express, or a service's raw
 * node:http fast path): its id (kept from X-Request-Id when sane) in the X-Request-Id header, and
 * when its response finishes one log line and its metrics. The line is at info, except for
 * probe paths (`PROBE_PATHS`), which are logged at debug.
 */
export interface RequestObserver {
  /**
   * Starts observing one request: `path` is its URL path without the query (the log line's
   * `path`), `route` is read when the response finishes (the route that answered, as Express
   * names it: mount path + route path, or `unmatched`). Returns the request's id.
   */
  begin(req: IncomingMessage, res: ServerResponse, path: string, route: () => string): string;
}

export function createRequestObserver(logger: Logger, metrics?: Metrics): RequestObserver {
  const ids = createRequestIds();
  return {
    begin(req, res, path, route) {
      const probe = PROBE_PATHS.includes(path);
      const id = ids.for(req.headers['x-request-id']);
      res.setHeader('X-Request-Id', id);
      const start = process.hrtime.bigint();
      res.on('finish', () => {
        const seconds = Number(process.hrtime.bigint() - start) / 1e9;
        const labels = { method: req.method!, route: route(), status: String(res.statusCode) };
        metrics?.httpRequests.inc(labels);
        metrics?.httpDuration.observe(labels, seconds);
        logger[probe ? 'debug' : 'info'](
          {
            reqId: id,
            method: req.method,
            path,
            route: labels.route,
            status: res.statusCode,
            ms: Math.round(seconds * 1e4) / 10,
          },
          'request',
        );
      });
      return id;
    },
  };
}

/** The Express middleware of createRequestObserver: req.id, one log line and metrics per request. */
export function requestContext(logger: Logger, metrics?: Metrics): RequestHandler {
  return requestContextOf(createRequestObserver(logger, metrics));
}

/** requestContext with an observer the caller shares (with its fast path, say). */
export function requestContextOf(observer: RequestObserver): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    req.id = observer.begin(req, res, req.path, () => {
      const matched = req.route as { path: unknown } | undefined; // express types it `any`
      return matched ? `${req.baseUrl}${String(matched.path)}` : 'unmatched';
    });
    next();
  };
}

export type ReadinessCheck = () => Promise<unknown>;

const DRAINING = Symbol.for('@hub/service-kit.draining');

/** Marks a request as arriving while the server drains (`serve` does this after SIGTERM). */
export function markDraining(req: IncomingMessage): void {
  (req as unknown as Record<symbol, boolean>)[DRAINING] = true;
}

function isDraining(req: IncomingMessage): boolean {
  return (req as unknown as Record<symbol, boolean | undefined>)[DRAINING] === true;
}

/**
 * /healthz is liveness: 200 while the process can serve, with no dependency touched (a
 * database blip must not get every replica restarted), also while draining. /readyz is
 * readiness: every check (database, search engine, ...) with the failing ones named, and 503
 * as soon as draining starts (`serve` after SIGTERM, or `draining()`), without running them.
 * /metrics exposes Prometheus text.
 */
export function operationsRouter(opts: {
  database: ReadinessCheck;
  readiness?: Record<string, ReadinessCheck>;
  metrics?: Metrics;
  /** true once the process is shutting down; `serve` also marks such requests itself */
  draining?: () => boolean;
}): Router {
  const router = Router();
  const run = async (checks: Record<string, ReadinessCheck>) => {
    const results: Record<string, string> = {};
    let ok = true;
    await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await withTimeout(check(), 2000);
          results[name] = 'ok';
        } catch (e) {
          ok = false;
          results[name] = errorText(e);
        }
      }),
    );
    return { ok, results };
  };
  router.get('/healthz', (_req, res) => {
    res.status(200).json({ status: 'ok', checks: {} });
  });
  router.get('/readyz', async (req, res) => {
    if (isDraining(req) || opts.draining?.()) {
      res.status(503).json({ status: 'not ready', checks: { draining: 'shutting down' } });
      return;
    }
    const { ok, results } = await run({ database: opts.database, ...opts.readiness });
    res.status(ok ? 200 : 503).json({ status: ok ? 'ready' : 'not ready', checks: results });
  });
  if (opts.metrics) {
    const { registry } = opts.metrics;
    router.get('/metrics', async (_req, res) => {
      res.setHeader('Content-Type', registry.contentType);
      res.send(await registry.metrics());
    });
  }
  return router;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    }),
  ]);
}
