import jwt from 'jsonwebtoken';

/** The HS256 secret of the test apps (FEED_JWT_SECRET). */
export const SECRET = 'test-secret-test-secret-test-secret-0123456789';

export interface TokenOpts {
  scope?: string;
  sub?: string;
  expiresIn?: number;
  notBefore?: number;
  issuer?: string;
  audience?: string;
  secret?: string;
  payload?: Record<string, unknown>;
  noExp?: boolean;
}

/** A signed token (HS256 with SECRET, scope hub:read, one hour) unless `opts` say otherwise. */
export function token(opts: TokenOpts = {}): string {
  const payload = { scope: opts.scope ?? 'hub:read', ...opts.payload };
  return jwt.sign(payload, opts.secret ?? SECRET, {
    algorithm: 'HS256',
    subject: opts.sub ?? 'tester',
    ...(opts.noExp ? {} : { expiresIn: opts.expiresIn ?? 3600 }),
    ...(opts.notBefore !== undefined ? { notBefore: opts.notBefore } : {}),
    ...(opts.issuer ? { issuer: opts.issuer } : {}),
    ...(opts.audience ? { audience: opts.audience } : {}),
  });
}
export const READ_TOKEN = token();
export const WRITE_TOKEN = token({ scope: 'hub:read hub:write' });
