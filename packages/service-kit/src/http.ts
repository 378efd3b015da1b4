import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Router } from 'express';
import type { Logger } from './logger';
import type { Metrics } from './metrics';

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Request id (kept from X-Request-Id when sane), one log line and metrics per request. */
export function requestContext(logger: Logger, metrics?: Metrics): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const given = req.headers['x-request-id'];
    req.id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const route = req.route ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      const labels = { method: req.method, route, status: String(res.statusCode) };
      metrics?.httpRequests.inc(labels);
      metrics?.httpDuration.observe(labels, seconds);
      logger.info(
        {
          reqId: req.id,
          method: req.method,
          path: req.path,
          route,
          status: res.statusCode,
          ms: Math.round(seconds * 1e4) / 10,
        },
        'request',
      );
    });
    next();
  };
}

export type ReadinessCheck = () => Promise<unknown>;

/**
 * /healthz answers 200 when the database answers; /readyz runs every readiness check
 * (database, search engine, ...) and names the failing ones; /metrics exposes Prometheus text.
 */
export function operationsRouter(opts: {
  database: ReadinessCheck;
  readiness?: Record<string, ReadinessCheck>;
  metrics?: Metrics;
  /** the service's OpenAPI document, served at /openapi.json */
  openapi?: object;
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
          results[name] = e instanceof Error ? e.message : String(e);
        }
      }),
    );
    return { ok, results };
  };
  router.get('/healthz', async (_req, res) => {
    const { ok, results } = await run({ database: opts.database });
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'unavailable', checks: results });
  });
  router.get('/readyz', async (_req, res) => {
    const { ok, results } = await run({ database: opts.database, ...opts.readiness });
    res.status(ok ? 200 : 503).json({ status: ok ? 'ready' : 'not ready', checks: results });
  });
  if (opts.openapi) {
    const body = JSON.stringify(opts.openapi);
    router.get('/openapi.json', (_req, res) => {
      res.type('application/json; charset=utf-8').send(body);
    });
  }
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
