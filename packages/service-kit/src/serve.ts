import http from 'node:http';
import { markDraining } from './http';
import type { Logger } from './logger';

/** The address to listen on: `HOST` when set, else every interface (what a container needs). */
export function listenHost(env: NodeJS.ProcessEnv = process.env): string {
  return env.HOST?.trim() || '0.0.0.0';
}

/**
 * Listens, and on SIGTERM/SIGINT stops accepting connections, lets in-flight requests
 * finish (at most `drainMs`, 10 s by default), then runs `close` (pools, relays) and exits.
 * From the signal on, every request is marked as draining: `/readyz` answers 503.
 */
export function serve(opts: {
  handler: http.RequestListener;
  port: number;
  host?: string;
  logger: Logger;
  close?: () => Promise<void>;
  drainMs?: number;
  exit?: (code: number) => void;
}): Promise<http.Server> {
  let stopping = false;
  const server = http.createServer((req, res) => {
    if (stopping) markDraining(req);
    opts.handler(req, res);
  });
  server.keepAliveTimeout = 65_000;
  const drainMs = opts.drainMs ?? 10_000;
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    opts.logger.info({ signal }, 'shutting down: draining in-flight requests');
    const force = setTimeout(() => {
      opts.logger.warn('drain deadline reached, closing remaining connections');
      server.closeAllConnections();
    }, drainMs);
    force.unref();
    server.close(async () => {
      clearTimeout(force);
      try {
        await opts.close?.();
        opts.logger.info('stopped');
        exit(0);
      } catch (e) {
        opts.logger.error({ err: e }, 'error while stopping');
        exit(1);
      }
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
