// An HTTP server on a free port of 127.0.0.1 (keep-alive like the service's): the service's
// instances and the bare-INSERT floor's server.
import http from 'node:http';

/** { port, close() } (close also ends idle keep-alive connections) */
export async function listen(handler) {
  const server = http.createServer(handler);
  server.keepAliveTimeout = 65_000;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    async close() {
      await new Promise((resolve) => server.close(resolve));
      server.closeAllConnections?.();
    },
  };
}
