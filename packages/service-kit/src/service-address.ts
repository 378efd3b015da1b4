import { isIPv6 } from 'node:net';
import type { Request } from 'express';

/**
 * The address a service is reached at, as its OpenAPI document's `servers` names it:
 * the base URL setting when it was given explicitly (it may carry a path prefix: it is
 * named exactly as set); otherwise the request's own origin, `<protocol>://<host>`.
 *
 * The origin is the app's `req.protocol` and `req.host`: the socket's protocol and the
 * `Host` header, or `X-Forwarded-Proto` / `X-Forwarded-Host` only when the app trusts the
 * proxy that sent them (Express's `trust proxy`). A protocol other than http/https, or a host
 * that is not `name[:port]`, `IPv4[:port]` or `[IPv6][:port]`, is never repeated: the
 * configured default (`baseUrl`) is named instead.
 */
export function serviceAddress(opts: {
  /** the base URL setting, or its local default */
  baseUrl: string;
  /** whether the setting was given (false: `baseUrl` is only the fallback) */
  given: boolean;
}): (req: Request) => string {
  const { baseUrl, given } = opts;
  if (given) return () => baseUrl;
  return (req) => requestOrigin(req) ?? baseUrl;
}

/** One DNS-style label: letters, digits, '_' and '-', not starting or ending with '-'. */
const LABEL = '[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?';
const HOST = new RegExp(`^(?:(${LABEL}(?:\\.${LABEL})*)|\\[([0-9A-Fa-f:.]+)\\])(?::(\\d{1,5}))?$`);

/** `<protocol>://<host>` of the request, lower-cased; undefined when either part is not valid. */
export function requestOrigin(req: Request): string | undefined {
  const protocol = req.protocol.toLowerCase();
  if (protocol !== 'http' && protocol !== 'https') return undefined;
  const host = req.host;
  if (host === undefined || host.length > 260) return undefined;
  const m = HOST.exec(host);
  if (!m) return undefined;
  const [, name, ipv6, port] = m;
  if (name !== undefined && name.length > 253) return undefined;
  if (ipv6 !== undefined && !isIPv6(ipv6)) return undefined;
  if (port !== undefined && Number(port) > 65535) return undefined;
  return `${protocol}://${host.toLowerCase()}`;
}
