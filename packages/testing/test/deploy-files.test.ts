/**
 * Static checks of the deployment files (no Docker needed): the two Dockerfiles, the compose
 * stack, .env.example and the GitHub Actions workflow. Each test is named after the rule.
 */
import fs from 'node:fs';
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

  test('uses a Node LTS >= 22 slim base in every stage', () => {
    for (const stage of stages) {
      const m = /^node:(\d+)(?:\.\d+)*-(?:[a-z]+-)?slim(?:@sha256:[0-9a-f]{64})?$/.exec(stage.from);
      expect({ from: stage.from, slim: !!m }).toEqual({ from: stage.from, slim: true });
      const major = Number(m![1]);
      expect(major).toBeGreaterThanOrEqual(22);
      expect(major % 2).toBe(0); // even majors are the LTS lines
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
    // the service resolves its migrations as <dist>/../migrations
    expect(read(`services/${name}/src/main.ts`)).toMatch(
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

  test('.env.example placeholders satisfy the services (secret lengths) and are not real', () => {
    const env = Object.fromEntries(
      read('.env.example')
        .split(/\r?\n/)
        .map((l) => /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(l.trim()))
        .filter((m): m is RegExpExecArray => !!m)
        .map((m) => [m[1]!, m[2]!]),
    );
    expect(env.FEED_JWT_SECRET!.length).toBeGreaterThanOrEqual(32);
    expect(env.SEARCH_ADMIN_TOKEN!.length).toBeGreaterThanOrEqual(16);
    expect(Buffer.byteLength(env.MEILI_MASTER_KEY!)).toBeGreaterThanOrEqual(16);
    for (const key of Object.keys(env).filter((k) => SECRET_NAME.test(k))) {
      expect({ key, value: env[key] }).toEqual({ key, value: expect.stringMatching(/change-me/) });
    }
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
