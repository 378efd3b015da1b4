/**
 * Environment → typed settings. Every reader records its problem instead of throwing,
 * so `done()` can report every bad or missing setting in one message.
 *
 * Secrets (`secret`, `optionalSecret`, the password of `postgresUrl`) are never echoed in a
 * problem, and a placeholder is refused (`isPlaceholderSecret`): the values the example env
 * files ship are public, so a service started with one would trust anyone.
 */
export class ConfigError extends Error {
  constructor(
    readonly service: string,
    readonly problems: string[],
  ) {
    super(`${service}: invalid configuration\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Opt<T> = { default?: T; required?: boolean };

/**
 * The placeholder rule, the one statement of it: a secret is a placeholder when it contains
 * "change-me" in any case or spelling ("changeme", "change_me", "change me"; what
 * infra/production/*.env.example ship), or is written the way the docs stand in for a value:
 * "<NAME>", "..." or "…".
 */
export function isPlaceholderSecret(value: string): boolean {
  const v = value.trim();
  return /change[-_ .]?me/i.test(v) || /^<[^<>]*>$/.test(v) || /^(\.{3}|…)$/.test(v);
}

const placeholderProblem = (name: string) =>
  `${name} is a placeholder from an example file: set a secret of your own (e.g. openssl rand -hex 32)`;

export class ConfigReader {
  readonly problems: string[] = [];
  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  private raw(name: string): string | undefined {
    const v = this.env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  }

  string(name: string, opt: Opt<string> = {}): string {
    const v = this.raw(name);
    if (v !== undefined) return v;
    if (opt.default !== undefined) return opt.default;
    if (opt.required !== false) this.problems.push(`${name} is required`);
    return '';
  }

  optionalString(name: string): string | undefined {
    return this.raw(name);
  }

  /** Whether the setting is given (not missing, not blank): a default was not used. */
  isSet(name: string): boolean {
    return this.raw(name) !== undefined;
  }

  /** A secret setting (token, key, password); a placeholder is a problem. */
  secret(name: string, opt: Opt<string> = {}): string {
    const v = this.string(name, opt);
    if (v && isPlaceholderSecret(v)) this.problems.push(placeholderProblem(name));
    return v;
  }

  optionalSecret(name: string): string | undefined {
    return this.secret(name, { required: false }) || undefined;
  }

  /**
   * A PostgreSQL connection URL (postgres: or postgresql:); a placeholder password, in the
   * user-info part (URL-encoded or not) or as ?password=, is a problem.
   */
  postgresUrl(name: string, opt: Opt<string> = {}): string {
    const v = this.url(name, { ...opt, protocols: ['postgres', 'postgresql'], secret: true });
    if (!URL.canParse(v)) return v;
    const u = new URL(v);
    const passwords = [safeDecode(u.password), u.searchParams.get('password') ?? ''];
    if (passwords.some((p) => p && isPlaceholderSecret(p)))
      this.problems.push(
        `${name} has a placeholder password from an example file: set the database user's real password`,
      );
    return v;
  }

  int(name: string, opt: Opt<number> & { min?: number; max?: number } = {}): number {
    const v = this.raw(name);
    if (v === undefined) {
      if (opt.default !== undefined) return opt.default;
      this.problems.push(`${name} is required`);
      return 0;
    }
    const n = /^-?\d+$/.test(v) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n)) {
      this.problems.push(`${name} must be an integer (got "${v}")`);
      return opt.default ?? 0;
    }
    if (opt.min !== undefined && n < opt.min)
      this.problems.push(`${name} must be >= ${opt.min} (got ${n})`);
    if (opt.max !== undefined && n > opt.max)
      this.problems.push(`${name} must be <= ${opt.max} (got ${n})`);
    return n;
  }

  bool(name: string, def: boolean): boolean {
    const v = this.raw(name);
    if (v === undefined) return def;
    if (/^(1|true|yes|on)$/i.test(v)) return true;
    if (/^(0|false|no|off)$/i.test(v)) return false;
    this.problems.push(`${name} must be true or false (got "${v}")`);
    return def;
  }

  /** An absolute URL; with `secret`, a problem never shows the value (it may hold a password). */
  url(name: string, opt: Opt<string> & { protocols?: string[]; secret?: boolean } = {}): string {
    const v = this.string(name, opt);
    if (!v) return v;
    const got = opt.secret ? '' : ` (got "${v}")`;
    try {
      const u = new URL(v);
      if (opt.protocols && !opt.protocols.includes(u.protocol.replace(/:$/, ''))) {
        this.problems.push(`${name} must use ${opt.protocols.join(' or ')}${got}`);
      }
    } catch {
      this.problems.push(`${name} must be an absolute URL${got}`);
    }
    return v.replace(/\/+$/, '');
  }

  oneOf<T extends string>(name: string, values: readonly T[], def: T): T {
    const v = this.raw(name);
    if (v === undefined) return def;
    if ((values as readonly string[]).includes(v)) return v as T;
    this.problems.push(`${name} must be one of ${values.join(', ')} (got "${v}")`);
    return def;
  }

  /** Records a problem found by the caller's own cross-field checks. */
  problem(message: string): void {
    this.problems.push(message);
  }

  done(service: string): void {
    if (this.problems.length) throw new ConfigError(service, this.problems);
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
