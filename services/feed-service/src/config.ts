import { createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import {
  defaultItemAuthor,
  FEED_CHANNEL_FIELDS,
  FEED_DEFAULT_VENDOR,
  FEED_DEFAULTS,
  type FeedFieldName,
} from '@hub/contracts';
import {
  ConfigReader,
  readDatabaseConnectTimeout,
  readHttpTimeouts,
  type HttpTimeouts,
} from '@hub/service-kit';

/** Algorithms a token may be signed with; `none` is never one of them. */
export const JWT_ALGORITHMS = [
  'HS256',
  'HS384',
  'HS512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

/** Shortest HMAC secret accepted (RFC 7518 §3.2: a key at least as long as the hash, 256 bits). */
export const MIN_SECRET_LENGTH = 32;

export interface JwtConfig {
  /** built once at start: a secret key (HS*) or a public key (RS*, PS*, ES*) */
  key: KeyObject;
  algorithms: JwtAlgorithm[];
  issuer?: string;
  audience?: string;
}

/**
 * The channel's settings: the text fields of the spec's channel table but lastBuildDate, which
 * each response sets (render/view.ts adds it back for ChannelView).
 */
export type ChannelConfig = Omit<
  Record<FeedFieldName<typeof FEED_CHANNEL_FIELDS, 'String'>, string>,
  'lastBuildDate'
>;

export interface FeedConfig {
  port: number;
  databaseUrl: string;
  logLevel: string;
  jwt: JwtConfig;
  /** public base URL of this service, for atom:link rel="self" (no trailing slash) */
  baseUrl: string;
  /** whether FEED_BASE_URL was set; if not, /openapi.json names the request's own origin */
  baseUrlGiven: boolean;
  vendor: string;
  channel: ChannelConfig;
  /** item author when an item names none: `<EMAIL> (<PROVIDER_NAME>)` */
  defaultAuthor: string;
  cacheMaxAge: number;
  /** WebSub hubs every feed advertises and every write pings (FEED_WEBSUB_HUBS; empty: none) */
  websubHubs: string[];
  /** how long a request's query waits for a connection of the pool */
  databaseConnectTimeoutMs: number;
  /** how long a client may take to send a request, and keep a connection idle */
  httpTimeouts: HttpTimeouts;
}

const EMAIL = /^[^\s@()<>]+@[^\s@()<>]+$/;

/** Environment → typed config; every bad or missing setting is reported at once. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): FeedConfig {
  const r = new ConfigReader(env);
  const port = r.int('PORT', { default: 8080, min: 0, max: 65535 });
  const databaseUrl = r.postgresUrl('DATABASE_URL');
  const logLevel = r.oneOf(
    'LOG_LEVEL',
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    'info',
  );
  const jwt = readJwt(r);
  const baseUrl = r.url('FEED_BASE_URL', {
    default: `http://localhost:${port}`,
    protocols: ['http', 'https'],
  });
  const vendor = r.string('FEED_VENDOR', { default: FEED_DEFAULT_VENDOR }).toLowerCase();
  if (!/^[a-z0-9][a-z0-9-]*$/.test(vendor))
    r.problem(
      `FEED_VENDOR must be a media-type token of letters, digits and '-' (got "${vendor}")`,
    );
  const language = r.string('FEED_CHANNEL_LANGUAGE', { default: FEED_DEFAULTS.channel.language });
  if (!/^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(language))
    r.problem(
      `FEED_CHANNEL_LANGUAGE must be a language tag such as ko or en-US (got "${language}")`,
    );
  const channel: ChannelConfig = {
    title: r.string('FEED_CHANNEL_TITLE', { default: FEED_DEFAULTS.channel.title }),
    link: r.url('FEED_CHANNEL_LINK', { default: baseUrl, protocols: ['http', 'https'] }),
    description: r.string('FEED_CHANNEL_DESCRIPTION', {
      default: FEED_DEFAULTS.channel.description,
    }),
    language,
    copyright: r.string('FEED_CHANNEL_COPYRIGHT', { default: FEED_DEFAULTS.channel.copyright }),
  };
  const email = r.string('FEED_AUTHOR_EMAIL', { default: 'hub@example.com' });
  if (!EMAIL.test(email)) r.problem(`FEED_AUTHOR_EMAIL must be an e-mail address (got "${email}")`);
  const provider = r.string('FEED_PROVIDER_NAME', { default: 'Hub' });
  if (/[()\r\n]/.test(provider))
    r.problem('FEED_PROVIDER_NAME must not contain parentheses or line breaks');
  const cacheMaxAge = r.int('FEED_CACHE_MAX_AGE', { default: 60, min: 0, max: 86_400 });
  const websubHubs = readHubs(r);
  const databaseConnectTimeoutMs = readDatabaseConnectTimeout(r);
  const httpTimeouts = readHttpTimeouts(r);
  r.done('feed-service');
  return {
    port,
    databaseUrl,
    logLevel,
    jwt,
    baseUrl,
    baseUrlGiven: r.isSet('FEED_BASE_URL'),
    vendor,
    channel,
    defaultAuthor: defaultItemAuthor(email, provider),
    cacheMaxAge,
    websubHubs,
    databaseConnectTimeoutMs,
    httpTimeouts,
  };
}

/** FEED_WEBSUB_HUBS: comma-separated absolute http(s) URLs without credentials, kept as written. */
function readHubs(r: ConfigReader): string[] {
  const hubs: string[] = [];
  const listed = r.optionalString('FEED_WEBSUB_HUBS') ?? '';
  for (const hub of listed.split(',').map((h) => h.trim())) {
    if (hub === '' || hubs.includes(hub)) continue;
    let url: URL | undefined;
    try {
      url = new URL(hub);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
      r.problem(`FEED_WEBSUB_HUBS: "${hub}" must be an absolute http or https URL`);
    } else if (url.username || url.password) {
      r.problem(`FEED_WEBSUB_HUBS: "${url.host}" must not carry a user name or password`);
    } else {
      hubs.push(hub);
    }
  }
  return hubs;
}

/** Reads a PEM from the environment; `\n` escapes (one-line env files) become line breaks. */
export function pemFromEnv(value: string): string {
  return value.includes('\\n') ? value.replace(/\\n/g, '\n') : value;
}

/** The algorithms a key of this kind can verify. */
export function algorithmsForKey(key: KeyObject): JwtAlgorithm[] {
  if (key.type === 'secret') return ['HS256', 'HS384', 'HS512'];
  if (key.asymmetricKeyType === 'rsa')
    return ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];
  if (key.asymmetricKeyType === 'rsa-pss') return ['PS256', 'PS384', 'PS512'];
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return ['ES256'];
    if (curve === 'secp384r1') return ['ES384'];
    if (curve === 'secp521r1') return ['ES512'];
  }
  return [];
}

function readJwt(r: ConfigReader): JwtConfig {
  const secret = r.optionalSecret('FEED_JWT_SECRET');
  const publicPem = r.optionalString('FEED_JWT_PUBLIC_KEY');
  let key: KeyObject | undefined;
  if (secret !== undefined && publicPem !== undefined) {
    r.problem('set only one of FEED_JWT_SECRET and FEED_JWT_PUBLIC_KEY');
  } else if (secret !== undefined) {
    if (secret.length < MIN_SECRET_LENGTH)
      r.problem(`FEED_JWT_SECRET must be at least ${MIN_SECRET_LENGTH} characters`);
    key = createSecretKey(Buffer.from(secret, 'utf8'));
  } else if (publicPem !== undefined) {
    try {
      key = createPublicKey(pemFromEnv(publicPem));
    } catch {
      r.problem('FEED_JWT_PUBLIC_KEY must be a PEM public key (RSA or EC)');
    }
  } else {
    r.problem('FEED_JWT_SECRET (HS256) or FEED_JWT_PUBLIC_KEY (RS256/ES256) is required');
  }
  const usable = key ? algorithmsForKey(key) : [];
  const listed = r.optionalString('FEED_JWT_ALGORITHMS');
  let algorithms: JwtAlgorithm[];
  if (listed === undefined) {
    algorithms = usable.slice(0, 1);
  } else {
    algorithms = [];
    for (const name of listed.split(/[\s,]+/).filter(Boolean)) {
      if (!(JWT_ALGORITHMS as readonly string[]).includes(name)) {
        r.problem(
          `FEED_JWT_ALGORITHMS: unknown algorithm "${name}" (allowed: ${JWT_ALGORITHMS.join(', ')})`,
        );
      } else if (key && !usable.includes(name as JwtAlgorithm)) {
        r.problem(
          `FEED_JWT_ALGORITHMS: ${name} cannot be verified with the configured ${key.type === 'secret' ? 'secret' : 'public key'}`,
        );
      } else {
        algorithms.push(name as JwtAlgorithm);
      }
    }
  }
  if (key && algorithms.length === 0 && listed === undefined)
    r.problem('FEED_JWT_PUBLIC_KEY: unsupported key type (use RSA or EC P-256/P-384/P-521)');
  if (
    listed !== undefined &&
    algorithms.length === 0 &&
    r.problems.every((p) => !p.startsWith('FEED_JWT_ALGORITHMS'))
  ) {
    r.problem('FEED_JWT_ALGORITHMS must name at least one algorithm');
  }
  return {
    key: key ?? createSecretKey(Buffer.alloc(MIN_SECRET_LENGTH)),
    algorithms,
    issuer: r.optionalString('FEED_JWT_ISSUER'),
    audience: r.optionalString('FEED_JWT_AUDIENCE'),
  };
}
