import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { isPublicAddress } from './address-policy';

/**
 * Fetches an original image for a thumbnail, safely: http/https only, no credentials in the
 * URL, a bounded size and time, at most a few redirects with every hop checked again, and no
 * private, loopback, link-local or otherwise special address unless allowed. The check is made
 * on the resolved address that the socket connects to (a custom DNS lookup that refuses bad
 * addresses, plus the socket's remote address), not on the host name, so DNS tricks and
 * redirects cannot reach an internal service. Another spelling of an address cannot slip
 * through either: the URL parser turns decimal, octal, hex and short IPv4 forms into dotted
 * quads, and isPublicAddress (address-policy.ts) sees through IPv4-mapped and refuses
 * IPv4-compatible IPv6 addresses.
 */

export { isPublicAddress };

export class ImageFetchError extends Error {
  constructor(
    message: string,
    /** permanent: retrying cannot help (refused address, too big, 404, not an image ...) */
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'ImageFetchError';
  }
}

export interface FetchLimits {
  /** whole fetch, every redirect included (default 10 s) */
  timeoutMs?: number;
  /** body bytes (default 10 MB) */
  maxBytes?: number;
  /** redirects followed (default 3) */
  maxRedirects?: number;
  /** THUMBNAIL_ALLOW_PRIVATE_NETWORKS: when true any address is allowed */
  allowPrivateNetworks?: boolean;
  /** overrides the address check (tests); default isPublicAddress unless allowPrivateNetworks */
  isAllowedAddress?: (address: string) => boolean;
}

export interface FetchedImage {
  body: Buffer;
  contentType: string | null;
  /** the URL the image finally came from (after redirects) */
  url: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function allowedAddressCheck(limits: FetchLimits): (address: string) => boolean {
  if (limits.isAllowedAddress) return limits.isAllowedAddress;
  if (limits.allowPrivateNetworks) return () => true;
  return isPublicAddress;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/** dns.lookup that refuses to hand out a forbidden address (both `all` and single forms). */
function guardedLookup(allowed: (address: string) => boolean) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses;
      const refused = list.find((a) => !allowed(a.address));
      if (refused || list.length === 0) {
        const e: NodeJS.ErrnoException = new ImageFetchError(
          `address ${refused?.address ?? '(none)'} of ${hostname} is not allowed`,
          true,
        );
        e.code = 'EADDRNOTALLOWED';
        return callback(e, []);
      }
      if (options.all) return callback(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

function checkUrl(raw: string, allowed: (address: string) => boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ImageFetchError(`invalid URL ${raw}`, true);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ImageFetchError(`scheme ${url.protocol} is not allowed`, true);
  }
  if (url.username || url.password)
    throw new ImageFetchError('credentials in the URL are not allowed', true);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) && !allowed(host))
    throw new ImageFetchError(`address ${host} is not allowed`, true);
  return url;
}

function statusError(status: number): ImageFetchError {
  const transient = status >= 500 || status === 408 || status === 429;
  return new ImageFetchError(`image server answered ${status}`, !transient);
}

interface Hop {
  status: number;
  location: string | null;
  contentType: string | null;
  body: Buffer | null;
}

function requestOnce(
  url: URL,
  allowed: (a: string) => boolean,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Hop> {
  return new Promise<Hop>((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      req.destroy();
      if (err instanceof ImageFetchError) return reject(err);
      if (signal.aborted) return reject(new ImageFetchError('image fetch timed out', false));
      const code = (err as NodeJS.ErrnoException)?.code ?? '';
      if (code === 'EADDRNOTALLOWED')
        return reject(new ImageFetchError((err as Error).message, true));
      reject(
        new ImageFetchError(`image fetch failed: ${(err as Error)?.message ?? String(err)}`, false),
      );
    };
    const req = client.request(
      url,
      {
        method: 'GET',
        lookup: guardedLookup(allowed),
        agent: false,
        signal,
        headers: {
          accept: 'image/*',
          'user-agent': 'hub-search-thumbnailer/1.0',
          'accept-encoding': 'identity',
        },
      },
      (res) => {
        const remote = res.socket.remoteAddress ?? '';
        if (!allowed(remote.replace(/^::ffff:(?=\d+\.)/, ''))) {
          return fail(new ImageFetchError(`address ${remote} is not allowed`, true));
        }
        const status = res.statusCode ?? 0;
        const contentType = res.headers['content-type'] ?? null;
        if (REDIRECTS.has(status) || status !== 200) {
          res.resume();
          settled = true;
          resolve({
            status,
            location: res.headers.location ?? null,
            contentType,
            body: null,
          });
          req.destroy();
          return;
        }
        const declared = Number(res.headers['content-length'] ?? NaN);
        if (Number.isFinite(declared) && declared > maxBytes) {
          return fail(
            new ImageFetchError(`image is ${declared} bytes, more than ${maxBytes}`, true),
          );
        }
        const chunks: Buffer[] = [];
        let total = 0;
        res.on('data', (chunk: Buffer) => {
          total += chunk.length;
          if (total > maxBytes)
            return fail(new ImageFetchError(`image is more than ${maxBytes} bytes`, true));
          chunks.push(chunk);
        });
        res.on('end', () => {
          if (settled) return;
          settled = true;
          resolve({ status, location: null, contentType, body: Buffer.concat(chunks) });
        });
        res.on('error', fail);
        res.on('aborted', () => fail(new Error('response aborted')));
      },
    );
    req.on('error', fail);
    req.end();
  });
}

export async function fetchImage(rawUrl: string, limits: FetchLimits = {}): Promise<FetchedImage> {
  const timeoutMs = limits.timeoutMs ?? 10_000;
  const maxBytes = limits.maxBytes ?? 10 * 1024 * 1024;
  const maxRedirects = limits.maxRedirects ?? 3;
  const allowed = allowedAddressCheck(limits);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    let url = checkUrl(rawUrl, allowed);
    for (let redirects = 0; ; redirects++) {
      const hop = await requestOnce(url, allowed, maxBytes, controller.signal);
      if (REDIRECTS.has(hop.status)) {
        if (!hop.location)
          throw new ImageFetchError(`redirect ${hop.status} without Location`, true);
        if (redirects >= maxRedirects)
          throw new ImageFetchError(`more than ${maxRedirects} redirects`, true);
        url = checkUrl(new URL(hop.location, url).toString(), allowed);
        continue;
      }
      if (hop.status !== 200 || !hop.body) throw statusError(hop.status);
      return { body: hop.body, contentType: hop.contentType, url: url.toString() };
    }
  } finally {
    clearTimeout(timer);
  }
}
