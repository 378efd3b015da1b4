// HTTP requests of the load generator that allocate nothing per answer they do not keep.
import net from 'node:net';

/**
 * Keep-alive HTTP/1.1 GETs to 127.0.0.1:port whose answers are read into one buffer that every
 * connection reuses (net's `onread`), so a search's answer costs the load generator no
 * allocation unless it keeps the body.
 *
 * Why: node:http reads each answer into new buffers (a 64 KB one per read, then the body's
 * chunks), memory that V8 counts as external. At ~1,500 searches/s of 10–170 KB answers that is
 * over 100 MB/s, and V8 answers external memory growing that fast with full collections: the
 * generator made 40–70 of them per measurement of 17,000 searches (every 200–300 ms, no
 * scavenge between two of them, so not its heap's growth), their pauses (up to 38 ms) were
 * added to the latency of every search in flight, and their marking took the cores from the
 * service (2026-11-27, `--trace-gc`).
 *
 * get(path, keepBody) resolves with { status, body }: body a Buffer of its own when keepBody is
 * true or the status is not 200 (the caller reports it), else null. request(method, path, body,
 * keepBody) is the same with a method and a form body (a string, sent as
 * application/x-www-form-urlencoded; null: none): the adds and the writer's writes, so that
 * the generator is not what bounds the bare-INSERT floor (node:http took it to 76 % of its
 * thread at ~4,600 adds/s). Answers must have a
 * Content-Length (the service's always do); a chunked one rejects. A request that finds its
 * connection closed by the server (an idle keep-alive ended) before any byte of the answer is
 * sent again once on a new connection. At most `connections` requests are on the wire at once;
 * more wait in order.
 */
export function createRawHttp({ port, connections }) {
  const readBuffer = Buffer.allocUnsafe(256 * 1024);
  const idle = [];
  const waiting = [];
  let open = 0;

  function connect() {
    const conn = { socket: null, request: null, head: null, status: 0, body: null, remaining: 0 };
    conn.filled = 0;
    conn.got = 0;
    conn.socket = net.connect({
      host: '127.0.0.1',
      port,
      onread: { buffer: readBuffer, callback: (n, buf) => void read(conn, buf, n) },
    });
    conn.socket.setNoDelay(true);
    conn.socket.on('error', (err) => end(conn, err));
    conn.socket.on('close', () => end(conn, new Error('connection closed')));
    open++;
    return conn;
  }

  /** the connection is gone: its request (if any) fails or is sent again */
  function end(conn, err) {
    if (conn.socket === null) return;
    conn.socket.destroy();
    conn.socket = null;
    open--;
    const i = idle.indexOf(conn);
    if (i >= 0) idle.splice(i, 1);
    const r = conn.request;
    conn.request = null;
    if (r && conn.got === 0 && !r.retried) {
      r.retried = true;
      dispatch(r);
    } else if (r) {
      r.reject(err);
      next();
    }
  }

  function dispatch(r) {
    const conn = idle.pop() ?? (open < connections ? connect() : null);
    if (!conn) return void waiting.push(r);
    conn.request = r;
    conn.head = '';
    conn.body = null;
    conn.got = 0;
    const head = `${r.method} ${r.path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`;
    if (r.body === null) conn.socket.write(`${head}\r\n`, 'latin1');
    else
      conn.socket.write(
        `${head}Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${Buffer.byteLength(r.body)}\r\n\r\n${r.body}`,
      );
  }

  function next() {
    const r = waiting.shift();
    if (r) dispatch(r);
  }

  function done(conn, status, body) {
    const r = conn.request;
    conn.request = null;
    idle.push(conn);
    r.resolve({ status, body });
    next();
  }

  /** n bytes of the connection's answer in buf (reused by the next read) */
  function read(conn, buf, n) {
    if (!conn.request) return; // bytes nobody asked for: the connection ends on its own
    conn.got += n;
    let at = 0;
    if (conn.head !== null) {
      // the head, possibly over several reads, as text until its blank line
      const before = conn.head.length;
      conn.head += buf.latin1Slice(0, n);
      const blank = conn.head.indexOf('\r\n\r\n');
      if (blank < 0) return;
      at = blank + 4 - before;
      const head = conn.head.slice(0, blank);
      conn.head = null;
      const length = /\r\ncontent-length: *(\d+)/i.exec(head);
      if (!length) {
        const r = conn.request;
        conn.request = null;
        end(conn, null);
        return void r.reject(new Error(`an answer without Content-Length: ${head.slice(0, 80)}`));
      }
      conn.status = Number(head.slice(9, 12));
      conn.remaining = Number(length[1]);
      const keep = conn.request.keepBody || conn.status !== 200;
      conn.body = keep ? Buffer.allocUnsafe(conn.remaining) : null;
      conn.filled = 0;
    }
    const take = Math.min(n - at, conn.remaining);
    if (conn.body) buf.copy(conn.body, conn.filled, at, at + take);
    conn.filled += take;
    conn.remaining -= take;
    if (conn.remaining === 0) done(conn, conn.status, conn.body);
  }

  const request = (method, path, body, keepBody) =>
    new Promise((resolve, reject) => dispatch({ method, path, body, keepBody, resolve, reject }));
  return {
    get: (path, keepBody) => request('GET', path, null, keepBody),
    request,
    close() {
      for (const conn of [...idle]) end(conn, null);
    },
  };
}
