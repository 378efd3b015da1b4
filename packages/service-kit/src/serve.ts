import http from 'node:http';
import type { Logger } from './logger';

/**
 * Listens, and on SIGTERM/SIGINT stops accepting connections, lets in-flight requests
 * finish (at most `drainMs`, 10 s by default), then runs `close` (pools, relays) and exits.
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
  const server = http.createServer(opts.handler);
  server.keepAliveTimeout = 65_000;
  const drainMs = opts.drainMs ?? 10_000;
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
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
    server.listen(opts.port, opts.host ?? '0.0.0.0', () => {
      opts.logger.info({ port: opts.port }, 'listening');
      resolve(server);
    });
  });
}
