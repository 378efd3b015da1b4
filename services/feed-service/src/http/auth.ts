import type { IncomingHttpHeaders } from 'node:http';
import jwt from 'jsonwebtoken';
import { FEED_ERRORS } from '@hub/contracts';
import { ServiceError } from '@hub/service-kit';
import { RecentCache } from '../cache/recent-cache';
import type { JwtConfig } from '../config';

/** Who a verified token speaks for. */
export interface Principal {
  subject?: string;
  scopes: ReadonlySet<string>;
  /** the token's exp, in ms */
  expiresAt: number;
}

export type TokenLookup =
  | { kind: 'token'; token: string }
  | { kind: 'missing' }
  | { kind: 'invalid'; reason: string; error: 'invalid_request' | 'invalid_token' };

export const WRITE_SCOPE = 'hub:write';
export const REALM = 'hub';
/** Longer "tokens" are refused without parsing (and never cached). */
export const MAX_TOKEN_LENGTH = 8192;
/**
 * Verified tokens remembered until their exp: a RecentCache of two generations of this
 * size (at most 20,000 tokens, a few MB); tokens not used for a generation are forgotten.
 */
export const TOKEN_CACHE_SIZE = 10_000;

const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Where the access token is: `Authorization: Bearer …` (the spec), `Authentication: Bearer …`
 * (the spec's prose spelling) or, on GET/HEAD only, RFC 6750's `access_token` query
 * parameter. Using more than one of them is an error (RFC 6750 §2).
 */
export function findToken(
  headers: IncomingHttpHeaders,
  method: string,
  rawQuery: string | undefined,
): TokenLookup {
  const fromHeaders = [headers.authorization, headers.authentication].filter(
    (v) => v !== undefined,
  );
  let fromQuery: string[] = [];
  if (
    rawQuery !== undefined &&
    (method === 'GET' || method === 'HEAD') &&
    rawQuery.includes('access_token')
  ) {
    fromQuery = new URLSearchParams(rawQuery).getAll('access_token');
  }
  const count = fromHeaders.length + fromQuery.length;
  if (count === 0) return { kind: 'missing' };
  if (count > 1)
    return {
      kind: 'invalid',
      reason: 'more than one access token in the request',
      error: 'invalid_request',
    };
  if (fromHeaders.length === 1) {
    const value = fromHeaders[0];
    const m = typeof value === 'string' ? BEARER.exec(value) : null;
    if (!m)
      return { kind: 'invalid', reason: 'expected "Bearer <token>"', error: 'invalid_request' };
    return { kind: 'token', token: m[1]! };
  }
  const token = fromQuery[0]!;
  if (!B64TOKEN.test(token))
    return { kind: 'invalid', reason: 'malformed access_token', error: 'invalid_request' };
  return { kind: 'token', token };
}

/**
 * The token of the one common shape, `Authorization: Bearer <token>` alone, without a
 * regex or allocation (the fast path); undefined for anything else, which findToken
 * then judges. The text after "Bearer " is returned as is: only a token that verifies
 * is ever used, and one that would verify only after findToken's trimming goes to Express.
 */
export function plainBearerToken(
  headers: IncomingHttpHeaders,
  rawQuery: string | undefined,
): string | undefined {
  const value = headers.authorization;
  if (
    value === undefined ||
    headers.authentication !== undefined ||
    (rawQuery !== undefined && rawQuery.includes('access_token')) ||
    !value.startsWith('Bearer ') ||
    value.length === 7
  )
    return undefined;
  return value.slice(7);
}

export function authenticationFailed(
  reason?: string,
  error?: 'invalid_request' | 'invalid_token',
): ServiceError {
  const { status, text } = FEED_ERRORS.authenticationFailed;
  const challenge = error
    ? `Bearer realm="${REALM}", error="${error}", error_description="${reason}"`
    : `Bearer realm="${REALM}"`;
  return new ServiceError(
    { status, text: reason ? `${text}: ${reason}` : text },
    { headers: { 'WWW-Authenticate': challenge } },
  );
}

export function insufficientScope(scope: string): ServiceError {
  return new ServiceError(FEED_ERRORS.forbidden, {
    headers: {
      'WWW-Authenticate': `Bearer realm="${REALM}", error="insufficient_scope", scope="${scope}"`,
    },
  });
}

/** What verifyToken found: the verified payload, or why the token is refused. */
type Verification = { payload: string | jwt.JwtPayload } | { refused: string };

/**
 * A token's checks, in the security order: its shape (three parts, a decodable header),
 * a signature, a pinned algorithm the key can verify, the signature itself (jsonwebtoken),
 * and only then the claims of the verified payload: nbf, exp, aud, iss (exp's presence is
 * the caller's check). Each refusal is decided from the token itself, never from an error
 * message; jsonwebtoken is left only the signature.
 */
function verifyToken(token: string, config: JwtConfig, now: number): Verification {
  if (token.split('.').length !== 3) return { refused: 'malformed token' };
  let decoded: jwt.Jwt | null;
  try {
    decoded = jwt.decode(token, { complete: true });
  } catch {
    return { refused: 'malformed token' }; // a header of typ JWT whose payload is not JSON
  }
  if (!decoded) return { refused: 'malformed token' };
  if (token.slice(token.lastIndexOf('.') + 1).trim() === '') return { refused: 'unsigned token' };
  const alg: unknown = (decoded.header as { alg?: unknown }).alg;
  if (!config.algorithms.some((a) => a === alg) || !keyVerifies(config.key, alg as string))
    return { refused: 'algorithm not allowed' };

  let payload: string | jwt.JwtPayload;
  try {
    // nbf and exp are checked below, with the service's clock
    payload = jwt.verify(token, config.key, {
      algorithms: config.algorithms,
      ignoreNotBefore: true,
      ignoreExpiration: true,
    });
  } catch (err) {
    // with the shape and algorithm checked above, jsonwebtoken's own refusal is the signature
    return {
      refused: err instanceof jwt.JsonWebTokenError ? 'invalid signature' : 'invalid token',
    };
  }

  const claims: jwt.JwtPayload = typeof payload === 'object' ? payload : {};
  const seconds = Math.floor(now / 1000);
  if (claims.nbf !== undefined) {
    if (typeof claims.nbf !== 'number') return { refused: 'invalid token' };
    if (claims.nbf > seconds) return { refused: 'token not yet valid' };
  }
  if (claims.exp !== undefined) {
    if (typeof claims.exp !== 'number') return { refused: 'invalid token' };
    if (seconds >= claims.exp) return { refused: 'token expired' };
  }
  if (config.audience) {
    const audiences: unknown[] = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!audiences.includes(config.audience)) return { refused: 'wrong audience' };
  }
  if (config.issuer && claims.iss !== config.issuer) return { refused: 'wrong issuer' };
  return { payload };
}

/** HS* needs a secret key, RS*, PS* and ES* a public one (jsonwebtoken's rule too). */
function keyVerifies(key: JwtConfig['key'], alg: string): boolean {
  if (alg.startsWith('HS')) return key.type === 'secret';
  if (/^(?:RS|PS|ES)/.test(alg)) return key.type === 'public';
  return true;
}

/**
 * Verifies bearer JWTs with the key built once at start (config.ts, crypto.createSecretKey
 * or createPublicKey) and the pinned algorithms; exp is required, nbf/iss/aud are checked.
 * A verified token is remembered, keyed by its exact string, until its exp, so a polling
 * reader pays for the signature once.
 */
export interface Authenticator {
  /** A token already verified and not expired at `now` (the fast path: no crypto). */
  cached(token: string, now: number): Principal | undefined;
  /** The principal of a valid token, or the 401 to answer (returned, not thrown: the checks). */
  check(token: string): Principal | ServiceError;
  /** The principal of a valid token, or a 401 ServiceError thrown. */
  verify(token: string): Principal;
}

export function createAuthenticator(
  config: JwtConfig,
  clock: () => number = Date.now,
): Authenticator {
  const verified = new RecentCache<string, Principal>(TOKEN_CACHE_SIZE);

  function cached(token: string, now: number): Principal | undefined {
    const principal = verified.get(token);
    if (principal === undefined) return undefined;
    if (principal.expiresAt <= now) {
      verified.delete(token);
      return undefined;
    }
    return principal;
  }

  function check(token: string): Principal | ServiceError {
    const now = clock();
    const known = cached(token, now);
    if (known) return known;
    if (token.length > MAX_TOKEN_LENGTH || !B64TOKEN.test(token))
      return authenticationFailed('malformed token', 'invalid_token');
    const verification = verifyToken(token, config, now);
    if ('refused' in verification)
      return authenticationFailed(verification.refused, 'invalid_token');
    const payload = verification.payload;
    if (typeof payload !== 'object' || typeof payload.exp !== 'number')
      return authenticationFailed('token has no exp claim', 'invalid_token');
    const scope: unknown = payload.scope;
    const principal: Principal = {
      subject: typeof payload.sub === 'string' ? payload.sub : undefined,
      scopes: new Set(typeof scope === 'string' ? scope.split(' ').filter(Boolean) : []),
      expiresAt: payload.exp * 1000,
    };
    verified.set(token, principal);
    return principal;
  }

  return {
    cached,
    check,
    verify(token) {
      const result = check(token);
      if (result instanceof ServiceError) throw result;
      return result;
    },
  };
}
