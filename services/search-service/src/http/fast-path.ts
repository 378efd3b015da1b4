import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger, RequestObserver } from '@hub/service-kit';
import { isFormType, rawQuery, formCharsetIsUtf8 } from './body';
import { logFailure, serviceErrorOf, writeError } from './errors';
import { RequestParams } from './params';
import {
  addOperation,
  DOCS_PATH,
  goneSignal,
  SEARCH_PATH,
  searchOperation,
  writeReply,
  type Reply,
  type RouteDeps,
} from './routes';

/** Answers a request and returns true, or returns false (Express is to answer it). */
export interface FastPath {
  (req: IncomingMessage, res: ServerResponse): boolean;
  /** requests it took since it was made */
  taken(): number;
}

/**
 * Raw node:http handling of the two operations nearly every request is, search and add,
 * skipping Express's per-request work (its router walk, request and response decoration, the
 * body parser's stream plumbing): ~6 % of the service thread per search and ~10 % per add in
 * the bench's profiles (README, "The fast path"). It takes a request only when Express would
 * route it to the same operation with nothing else to decide:
 *
 * - search: `GET {search_url path}/v2/{cid}/search/{format}` with no body (no Content-Length
 *   but 0, no Transfer-Encoding);
 * - add: `POST {base_url path}/v2/{cid}/docs` with a Content-Length of at most the body
 *   limit, no Transfer-Encoding, no Content-Encoding (or identity), and a form Content-Type
 *   (or none);
 * - {cid} and {format} are single path segments without `%` (Express would decode an escape;
 *   such a request goes to Express, as does any other casing, a trailing slash, HEAD, a body
 *   that must be inflated or is chunked).
 *
 * Everything else returns false and Express handles the request. What the fast path then does
 * is the Express route's own code: the same operation (routes.ts: the checks in order, the
 * collection's gate, the use case), the same answer writer, the same error mapping and writer
 * (errors.ts) and the same request observer (the X-Request-Id header, one log line, the
 * metrics, with the route named as Express names it). `test/fast-path.test.ts` sends every
 * request of the contract suites both ways and compares status, headers and body.
 */
export function createFastPath(
  deps: RouteDeps,
  o: {
    /** the path of {search_url} ('' for the root) */
    searchMount: string;
    /** the path of {base_url} ('' for the root) */
    baseMount: string;
    observer: RequestObserver;
    logger: Logger;
  },
): FastPath {
  let taken = 0;
  const search = searchOperation(deps);
  const add = addOperation(deps);
  const searchPrefix = `${o.searchMount}/v2/`;
  const basePrefix = `${o.baseMount}/v2/`;
  const searchRoute = `${o.searchMount}${SEARCH_PATH}`;
  const addRoute = `${o.baseMount}${DOCS_PATH}`;

  /**
   * Runs an operation and writes its answer or its failure, as the Express route would (`run` is
   * async: whatever it throws is answered, never thrown into node's request listener).
   */
  const answer = (res: ServerResponse, id: string, run: () => Promise<Reply>) => {
    run().then(
      (reply) => writeReply(res, reply),
      (err: unknown) => {
        const e = serviceErrorOf(err);
        logFailure(o.logger, id, e, err);
        if (res.headersSent) res.destroy();
        else writeError(res, e);
      },
    );
  };

  const handle = (req: IncomingMessage, res: ServerResponse): boolean => {
    const method = req.method;
    if (method !== 'GET' && method !== 'POST') return false;
    const url = req.url!;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const headers = req.headers;
    if (headers['transfer-encoding'] !== undefined) return false;

    if (method === 'GET') {
      if (!path.startsWith(searchPrefix)) return false;
      const [cid, format] = segments(path, searchPrefix.length, '/search/');
      if (cid === undefined || format === undefined) return false;
      const length = headers['content-length'];
      if (length !== undefined && length !== '0') return false;
      taken++;
      const id = o.observer.begin(req, res, path, () => searchRoute);
      const gone = goneSignal(res);
      answer(res, id, async () =>
        search(cid, RequestParams.from(rawQuery(url), null, true), { format, gone }),
      );
      return true;
    }

    if (!path.startsWith(basePrefix) || !path.endsWith('/docs')) return false;
    const cid = path.slice(basePrefix.length, path.length - '/docs'.length);
    if (!isSegment(cid)) return false;
    const length = Number(headers['content-length'] ?? NaN);
    if (!(length >= 0 && length <= deps.maxBodyBytes)) return false;
    const encoding = headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') return false;
    const type = headers['content-type'];
    if (!isFormType(type)) return false;
    taken++;
    const id = o.observer.begin(req, res, path, () => addRoute);
    readBody(req, length, (body) =>
      answer(res, id, async () => {
        const utf8 = body.length > 0 ? formCharsetIsUtf8(type) : true;
        return add(cid, RequestParams.from(rawQuery(url), body.length > 0 ? body : null, utf8), {});
      }),
    );
    return true;
  };
  return Object.assign(handle, { taken: () => taken });
}

/** A path segment Express would pass through unchanged: not empty, no `/`, no `%` escape. */
function isSegment(s: string): boolean {
  return s.length > 0 && !s.includes('/') && !s.includes('%');
}

/** `{cid}{middle}{format}` from `from` on: both segments, or undefined where one is not. */
function segments(path: string, from: number, middle: string): [string?, string?] {
  const at = path.indexOf(middle, from);
  if (at < 0) return [];
  const cid = path.slice(from, at);
  const format = path.slice(at + middle.length);
  return isSegment(cid) && isSegment(format) ? [cid, format] : [];
}

/**
 * The body, once it has all arrived (node's parser holds it to its Content-Length). A request
 * whose client goes away before that is never answered: there is nobody to answer.
 */
function readBody(req: IncomingMessage, length: number, then: (body: Buffer) => void): void {
  if (length === 0) {
    req.resume();
    req.once('end', () => then(Buffer.alloc(0)));
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.length;
  });
  req.once('end', () => then(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
  req.once('error', () => {}); // the client went away: its socket is gone already
}
