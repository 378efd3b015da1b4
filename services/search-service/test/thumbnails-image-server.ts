import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import sharp from 'sharp';

/**
 * A local image server for thumbnail tests (loopback only): sharp-generated originals in
 * several formats, a huge one, oversized bodies, a non-image, a slow answer, a body that never
 * ends, failures and redirects. `hits` counts requests per path.
 */
export interface ImageServer {
  url: string;
  port: number;
  hits: Map<string, number>;
  /** answers 503 to a path this many more times */
  failures: Map<string, number>;
  close(): Promise<void>;
}

function solid(width: number, height: number, channels: 3 | 4) {
  return sharp({
    create: {
      width,
      height,
      channels,
      background: channels === 4 ? { r: 10, g: 120, b: 200, alpha: 0.5 } : { r: 200, g: 40, b: 40 },
    },
  });
}

export async function startImageServer(): Promise<ImageServer> {
  const images: Record<string, { type: string; body: Buffer }> = {
    '/a.jpg': { type: 'image/jpeg', body: await solid(800, 600, 3).jpeg().toBuffer() },
    '/b.jpg': { type: 'image/jpeg', body: await solid(300, 900, 3).jpeg().toBuffer() },
    '/a.png': { type: 'image/png', body: await solid(400, 300, 4).png().toBuffer() },
    '/a.webp': { type: 'image/webp', body: await solid(300, 600, 3).webp().toBuffer() },
    '/small.png': { type: 'image/png', body: await solid(40, 20, 3).png().toBuffer() },
    '/huge.jpg': {
      type: 'image/jpeg',
      body: await solid(6000, 6000, 3).jpeg({ quality: 50 }).toBuffer(),
    },
    '/not-image.txt': { type: 'text/plain', body: Buffer.from('hello, I am not an image') },
    '/fake.jpg': { type: 'image/jpeg', body: Buffer.from('GIF89a not really') },
    '/svg.svg': {
      type: 'image/svg+xml',
      body: Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
      ),
    },
  };
  const hits = new Map<string, number>();
  const failures = new Map<string, number>();
  const sockets = new Set<net.Socket>();

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://images');
    const path = url.pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const left = failures.get(path) ?? 0;
    if (left > 0) {
      failures.set(path, left - 1);
      res.writeHead(503).end('try later');
      return;
    }
    const image = images[path];
    if (image) {
      res
        .writeHead(200, { 'content-type': image.type, 'content-length': image.body.length })
        .end(image.body);
      return;
    }
    if (path === '/big-declared.jpg') {
      // announces 2 MB
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': 2 * 1024 * 1024 });
      res.end(Buffer.alloc(2 * 1024 * 1024));
      return;
    }
    if (path === '/big-chunked.jpg') {
      // no Content-Length: 2 MB in chunks
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      for (let i = 0; i < 32; i++) res.write(Buffer.alloc(64 * 1024));
      res.end();
      return;
    }
    if (path === '/slow.jpg') {
      // /slow.jpg?ms=N answers after N ms (default 3000)
      setTimeout(
        () => {
          if (!res.destroyed)
            res.writeHead(200, { 'content-type': 'image/jpeg' }).end(images['/a.jpg']!.body);
        },
        Number(url.searchParams.get('ms') ?? 3000),
      ).unref();
      return;
    }
    if (path === '/trickle.jpg') {
      // headers at once, then a byte every 100 ms, never the end
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      const timer = setInterval(() => res.write(Buffer.alloc(1)), 100);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (path === '/missing.jpg') {
      res.writeHead(404).end('no');
      return;
    }
    const redirect = /^\/redirect\/(\d+)$/.exec(path);
    if (redirect) {
      // /redirect/N → N more hops, then /a.jpg
      const n = Number(redirect[1]);
      res.writeHead(302, { location: n > 1 ? `/redirect/${n - 1}` : '/a.jpg' }).end();
      return;
    }
    if (path === '/to') {
      res.writeHead(302, { location: url.searchParams.get('u') ?? '/' }).end();
      return;
    }
    res.writeHead(404).end('unknown');
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    failures,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A server that accepts connections and never answers (its sockets stay open until close). */
export interface SilentServer {
  url: string;
  /** connections accepted so far */
  connections(): number;
  close(): Promise<void>;
}

export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((s) => {
    accepted++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => accepted,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
