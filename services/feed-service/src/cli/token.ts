import { createPrivateKey, createSecretKey, type KeyObject } from 'node:crypto';
import { parseArgs } from 'node:util';
import jwt from 'jsonwebtoken';
import { errorText } from '@hub/service-kit';
import {
  algorithmsForKey,
  JWT_ALGORITHMS,
  MIN_SECRET_LENGTH,
  pemFromEnv,
  type JwtAlgorithm,
} from '../config';

/**
 * `pnpm --filter feed-service token --sub NAME [--scope "hub:read hub:write"] [--ttl 30d]`
 * Mints an access token with FEED_JWT_SECRET (HS256) or FEED_JWT_PRIVATE_KEY (RS256/ES256)
 * and prints only the token. iss/aud come from FEED_JWT_ISSUER / FEED_JWT_AUDIENCE unless
 * --iss / --aud are given, so the token passes the service's own checks.
 */
const USAGE = `usage: token --sub NAME [--scope "hub:read hub:write"] [--ttl 30d] [--iss ISSUER] [--aud AUDIENCE] [--alg HS256]
  --ttl   lifetime: seconds (3600) or a number with s, m, h or d (15m, 12h, 30d); default 1h, at most 366d
  --scope space-separated scopes; default "hub:read" (publishing needs "hub:write")
env: FEED_JWT_SECRET (HS*) or FEED_JWT_PRIVATE_KEY (PEM, RS*/ES*); FEED_JWT_ALGORITHMS picks the algorithm`;

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
export const MAX_TTL_SECONDS = 366 * 86_400;

/** "3600", "15m", "12h", "30d" → seconds; undefined when not a positive lifetime. */
export function parseTtl(text: string): number | undefined {
  const m = /^(\d{1,9})([smhd]?)$/.exec(text.trim());
  if (!m) return undefined;
  const seconds = Number(m[1]) * UNITS[m[2] || 's']!;
  return seconds > 0 && seconds <= MAX_TTL_SECONDS ? seconds : undefined;
}

export interface TokenOptions {
  sub: string;
  scope: string;
  ttlSeconds: number;
  issuer?: string;
  audience?: string;
  algorithm?: string;
}

function signingKey(env: NodeJS.ProcessEnv): KeyObject {
  const secret = env.FEED_JWT_SECRET?.trim();
  const privatePem = env.FEED_JWT_PRIVATE_KEY?.trim();
  if (secret && privatePem)
    throw new Error('set only one of FEED_JWT_SECRET and FEED_JWT_PRIVATE_KEY');
  if (secret) {
    if (secret.length < MIN_SECRET_LENGTH)
      throw new Error(`FEED_JWT_SECRET must be at least ${MIN_SECRET_LENGTH} characters`);
    return createSecretKey(Buffer.from(secret, 'utf8'));
  }
  if (privatePem) {
    try {
      return createPrivateKey(pemFromEnv(privatePem));
    } catch {
      throw new Error('FEED_JWT_PRIVATE_KEY must be a PEM private key (RSA or EC)');
    }
  }
  throw new Error('FEED_JWT_SECRET or FEED_JWT_PRIVATE_KEY is required');
}

export function mintToken(opts: TokenOptions, env: NodeJS.ProcessEnv = process.env): string {
  const key = signingKey(env);
  const usable = algorithmsForKey(key);
  const pinned = (env.FEED_JWT_ALGORITHMS ?? '').split(/[\s,]+/).filter(Boolean);
  const algorithm =
    opts.algorithm ?? pinned.find((a) => usable.includes(a as JwtAlgorithm)) ?? usable[0];
  if (
    !algorithm ||
    !(JWT_ALGORITHMS as readonly string[]).includes(algorithm) ||
    !usable.includes(algorithm as JwtAlgorithm)
  ) {
    throw new Error(
      `cannot sign with ${algorithm ?? 'this key'} (the key allows ${usable.join(', ') || 'nothing'})`,
    );
  }
  const issuer = opts.issuer ?? (env.FEED_JWT_ISSUER?.trim() || undefined);
  const audience = opts.audience ?? (env.FEED_JWT_AUDIENCE?.trim() || undefined);
  return jwt.sign({ scope: opts.scope }, key, {
    algorithm: algorithm as jwt.Algorithm,
    subject: opts.sub,
    expiresIn: opts.ttlSeconds,
    ...(issuer ? { issuer } : {}),
    ...(audience ? { audience } : {}),
  });
}

export function main(
  argv: string[],
  env: NodeJS.ProcessEnv,
  out: (s: string) => void,
  err: (s: string) => void,
): number {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        sub: { type: 'string' },
        scope: { type: 'string', default: 'hub:read' },
        ttl: { type: 'string', default: '1h' },
        iss: { type: 'string' },
        aud: { type: 'string' },
        alg: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    err(`${errorText(e)}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    out(`${USAGE}\n`);
    return 0;
  }
  const sub = typeof values.sub === 'string' ? values.sub.trim() : '';
  if (!sub) {
    err(`--sub is required\n${USAGE}\n`);
    return 2;
  }
  const ttlSeconds = parseTtl(String(values.ttl));
  if (ttlSeconds === undefined) {
    err(
      `--ttl must be seconds or a number with s, m, h or d, at most 366d (got "${String(values.ttl)}")\n`,
    );
    return 2;
  }
  const scope = String(values.scope).split(/\s+/).filter(Boolean).join(' ');
  try {
    out(
      `${mintToken(
        {
          sub,
          scope,
          ttlSeconds,
          issuer: values.iss as string | undefined,
          audience: values.aud as string | undefined,
          algorithm: values.alg as string | undefined,
        },
        env,
      )}\n`,
    );
    return 0;
  } catch (e) {
    err(`${errorText(e)}\n`);
    return 1;
  }
}

if (require.main === module) {
  process.exitCode = main(
    process.argv.slice(2),
    process.env,
    (s) => process.stdout.write(s),
    (s) => process.stderr.write(s),
  );
}
