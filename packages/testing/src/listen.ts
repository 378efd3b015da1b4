import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Listening {
  /** `http://127.0.0.1:<port>` */
  url: string;
  server: http.Server;
  /** drops open connections and stops listening */
  close: () => Promise<void>;
}

/**
 * Serves `handler` on a free loopback port (for clients that need a real address: a browser,
 * fetch, another process). Without a handler the server answers nothing until one is added
 * with `server.on('request', …)`, for an app that must know its own address first.
 */
export async function listen(handler?: http.RequestListener): Promise<Listening> {
  const server = handler ? http.createServer(handler) : http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
