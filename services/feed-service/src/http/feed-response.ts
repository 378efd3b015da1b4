import { createHash } from 'node:crypto';
import type {
  IncomingHttpHeaders,
  IncomingMessage,
  OutgoingHttpHeaders,
  ServerResponse,
} from 'node:http';
import { matchesIfNoneMatch } from '@hub/service-kit';
import type { FeedRepresentation } from '../cache/feed-cache';
import type { Negotiator } from './negotiation';

/** An RFC 822 date of a four-digit year is always this long (`Mon, 23 Nov 2026 05:26:57 GMT`). */
const DATE_LENGTH = 29;

/** The validators of a representation (RFC 9110 §8.8). */
export interface Validators {
  /** weak ETag from a hash of the content (lastBuildDate excluded) */
  etag: string;
  /** HTTP-date of the feed's newest change, when known */
  lastModified?: string;
  /** lastModified in whole seconds since the epoch */
  lastModifiedSeconds?: number;
  /**
   * Whether If-Modified-Since may be answered with 304: not when the feed changed in the
   * same second it was read (a later change in that second would share the Last-Modified).
   */
  lastModifiedReliable: boolean;
}

/** Computed once per representation (with its headers), never per request. */
export function validatorsOf(rep: FeedRepresentation): Validators {
  const hash = createHash('sha256').update(rep.head).update(rep.tail).digest('base64url');
  const validators: Validators = { etag: `W/"${hash.slice(0, 27)}"`, lastModifiedReliable: false };
  if (rep.changedAt) {
    const seconds = Math.floor(rep.changedAt.getTime() / 1000);
    validators.lastModified = new Date(seconds * 1000).toUTCString();
    validators.lastModifiedSeconds = seconds;
    validators.lastModifiedReliable = seconds < Math.floor(rep.readAt.getTime() / 1000);
  }
  return validators;
}

interface Prepared {
  validators: Validators;
  headers200: OutgoingHttpHeaders;
  headers304: OutgoingHttpHeaders;
  /** the same headers led by X-Request-Id, every value a string (the fast path's) */
  fast200: Record<string, string>;
  fast304: Record<string, string>;
  second: number;
  body: Buffer;
}

function requestIdFirst(headers: OutgoingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = { 'X-Request-Id': '' };
  for (const [k, v] of Object.entries(headers)) out[k] = String(v);
  return out;
}

/**
 * Writes a feed (200 or 304) with exactly the same status, headers and bytes whether the
 * fast path or the Express route calls it. Per representation, the validators and headers
 * are built once and the body (head + lastBuildDate + tail) once per second.
 */
export interface FeedResponder {
  /** lastBuildDate: the time of the request, RFC 822, memoised per second. */
  date(now: number): string;
  /**
   * Sends the representation; returns the status sent (200 or 304). The Express route has
   * already set X-Request-Id on `res` (requestContext); the fast path passes `requestId`
   * and the headers go out as one prepared object, skipping Node's per-header setHeader work
   * (same names, values and order either way).
   */
  write(
    req: IncomingMessage,
    res: ServerResponse,
    rep: FeedRepresentation,
    now: number,
    requestId?: string,
  ): number;
}

export function createFeedResponder(negotiator: Negotiator, cacheMaxAge: number): FeedResponder {
  const prepared = new WeakMap<FeedRepresentation, Prepared>();
  let dateSecond = -1;
  let dateText = '';
  const cacheControl = `private, max-age=${cacheMaxAge}`;

  function date(now: number): string {
    const second = Math.floor(now / 1000);
    if (second !== dateSecond) {
      dateSecond = second;
      dateText = new Date(second * 1000).toUTCString();
    }
    return dateText;
  }

  function write(
    req: IncomingMessage,
    res: ServerResponse,
    rep: FeedRepresentation,
    now: number,
    requestId?: string,
  ): number {
    const p = prepare(rep);
    if (notModified(req.headers, p.validators)) {
      if (requestId === undefined) res.writeHead(304, p.headers304);
      else res.writeHead(304, withId(p.fast304, requestId));
      res.end();
      return 304;
    }
    const second = Math.floor(now / 1000);
    if (p.second !== second) {
      p.body = Buffer.concat([rep.head, Buffer.from(date(now), 'latin1'), rep.tail]);
      p.second = second;
    }
    if (p.body.length !== rep.head.length + DATE_LENGTH + rep.tail.length) {
      // not a four-digit year: the precomputed Content-Length does not fit
      if (requestId !== undefined) res.setHeader('X-Request-Id', requestId);
      res.writeHead(200, { ...p.headers200, 'Content-Length': String(p.body.length) });
    } else if (requestId === undefined) {
      res.writeHead(200, p.headers200);
    } else {
      res.writeHead(200, withId(p.fast200, requestId));
    }
    res.end(p.body);
    return 200;
  }

  function prepare(rep: FeedRepresentation): Prepared {
    let p = prepared.get(rep);
    if (p) return p;
    const v = validatorsOf(rep);
    const validators: OutgoingHttpHeaders = { ETag: v.etag };
    if (v.lastModified) validators['Last-Modified'] = v.lastModified;
    p = {
      validators: v,
      headers200: {
        'Content-Type': negotiator.mediaTypes[rep.format],
        'Content-Length': String(rep.head.length + DATE_LENGTH + rep.tail.length),
        Vary: 'Accept',
        'Cache-Control': cacheControl,
        ...validators,
      },
      headers304: { Vary: 'Accept', 'Cache-Control': cacheControl, ...validators },
      fast200: {},
      fast304: {},
      second: -1,
      body: Buffer.alloc(0),
    };
    p.fast200 = requestIdFirst(p.headers200);
    p.fast304 = requestIdFirst(p.headers304);
    prepared.set(rep, p);
    return p;
  }

  return { date, write };
}

/**
 * The prepared headers with this request's id. The object is reused, not copied (its
 * shape never changes): writeHead turns it into the header block before it returns.
 */
function withId(headers: Record<string, string>, requestId: string): Record<string, string> {
  headers['X-Request-Id'] = requestId;
  return headers;
}

/**
 * RFC 9110 §13.1: If-None-Match (weak comparison) decides when present; otherwise
 * If-Modified-Since, when the Last-Modified is reliable (see Validators).
 */
export function notModified(headers: IncomingHttpHeaders, validators: Validators): boolean {
  const inm = headers['if-none-match'];
  if (inm !== undefined) return matchesIfNoneMatch(inm, validators.etag);
  const ims = headers['if-modified-since'];
  const seconds = validators.lastModifiedSeconds;
  if (ims === undefined || !validators.lastModifiedReliable || seconds === undefined) return false;
  const since = Date.parse(ims);
  return Number.isFinite(since) && seconds * 1000 <= since;
}
