import http from 'node:http';
import type { ConfigReader } from './config';
import { markDraining } from './http';
import type { Logger } from './logger';

/**
 * How long a connection may take, so that a slow or silent client cannot hold one for minutes
 * (Node's own defaults: 60 s for the headers, 300 s for the request, checked every 30 s; and
 * a socket that neither sends nor reads never closes):
 *  - `headersMs`: from the connection (on a kept-alive one: from the first byte of the next
 *    request) to the end of the request's headers; a client sending them a byte at a time, or
 *    nothing at all, is answered `408 Request Timeout` and closed.
 *  - `requestMs`: the same up to the end of the request's body; then `408` and closed. The
 *    handler's own time is not counted (the response may take as long as the work).
 *  - `keepAliveMs`: how long an idle connection is kept for a next request. Above the usual
 *    60 s idle timeout of load balancers, so a proxy never reuses a connection the service is
 *    closing (it would answer 502).
 *  - `socketIdleMs`: a connection on which nothing is sent or read for this long is closed,
 *    e.g. a client that stops reading its response; above the longest work of a request
 *    (while the handler works nothing is sent either). 0: never.
 * The two request bounds are checked every second (every quarter of the smaller one when that
 * is shorter, as in tests).
 */
export interface HttpTimeouts {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
  socketIdleMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 65_000,
  socketIdleMs: 120_000,
};

/**
 * HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS, HTTP_KEEP_ALIVE_TIMEOUT_MS and
 * HTTP_SOCKET_IDLE_TIMEOUT_MS (see HttpTimeouts), for a service's loadConfig.
 */
export function readHttpTimeouts(r: ConfigReader): HttpTimeouts {
  const d = DEFAULT_HTTP_TIMEOUTS;
  const t: HttpTimeouts = {
    headersMs: r.int('HTTP_HEADERS_TIMEOUT_MS', { default: d.headersMs, min: 100, max: 600_000 }),
    requestMs: r.int('HTTP_REQUEST_TIMEOUT_MS', { default: d.requestMs, min: 100, max: 3_600_000 }),
    keepAliveMs: r.int('HTTP_KEEP_ALIVE_TIMEOUT_MS', {
      default: d.keepAliveMs,
      min: 100,
      max: 600_000,
    }),
    socketIdleMs: r.int('HTTP_SOCKET_IDLE_TIMEOUT_MS', {
      default: d.socketIdleMs,
      min: 0,
      max: 3_600_000,
    }),
  };
  if (t.headersMs > t.requestMs)
    r.problem('HTTP_HEADERS_TIMEOUT_MS must not be above HTTP_REQUEST_TIMEOUT_MS');
  return t;
}

/** A server whose connections are bounded in time (HttpTimeouts). */
export function createHttpServer(
  handler: http.RequestListener,
  timeouts: HttpTimeouts = DEFAULT_HTTP_TIMEOUTS,
): http.Server {
  const server = http.createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: Math.min(
        1000,
        Math.ceil(Math.min(timeouts.headersMs, timeouts.requestMs) / 4),
      ),
    },
    handler,
  );
  server.keepAliveTimeout = timeouts.keepAliveMs;
  server.timeout = timeouts.socketIdleMs;
  return server;
}

/** The address to listen on: `HOST` when set, else every interface (what a container needs). */
export function listenHost(env: NodeJS.ProcessEnv = process.env): string {
  return env.HOST?.trim() || '0.0.0.0';
}

/**
 * Listens, and on SIGTERM/SIGINT stops accepting connections, lets in-flight requests
 * finish (at most `drainMs`, 10 s by default), then runs `close` (pools, relays) and exits.
 * From the signal on, every request is marked as draining: `/readyz` answers 503. Connections
 * are bounded in time by `timeouts` (createHttpServer; default DEFAULT_HTTP_TIMEOUTS).
 */
export function serve(opts: {
  handler: http.RequestListener;
  port: number;
  host?: string;
  logger: Logger;
  close?: () => Promise<void>;
  drainMs?: number;
  exit?: (code: number) => void;
  timeouts?: HttpTimeouts;
}): Promise<http.Server> {
  let stopping = false;
  const server = createHttpServer((req, res) => {
    if (stopping) markDraining(req);
    opts.handler(req, res);
  }, opts.timeouts);
  const drainMs = opts.drainMs ?? 10_000;
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const closeThenExit = async () => {
    try {
      await opts.close?.();
      opts.logger.info('stopped');
      exit(0);
    } catch (e) {
      opts.logger.error({ err: e }, 'error while stopping');
      exit(1);
    }
  };
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    opts.logger.info({ signal }, 'shutting down: draining in-flight requests');
    const force = setTimeout(() => {
      opts.logger.warn('drain deadline reached, closing remaining connections');
      server.closeAllConnections();
    }, drainMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      void closeThenExit(); // it catches what closing throws
    });
    // keep-alive connections with no request in flight are closed now; busy ones after their response
    server.closeIdleConnections();
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    idle.unref();
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  // Started by the developer launcher with an IPC channel: if the launcher dies (even by
  // kill -9) the channel closes and the service stops instead of holding its port.
  if (process.send) process.once('disconnect', () => shutdown('launcher gone'));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const host = opts.host ?? '0.0.0.0';
    server.listen(opts.port, host, () => {
      opts.logger.info({ host, port: opts.port }, 'listening');
      resolve(server);
    });
  });
}
