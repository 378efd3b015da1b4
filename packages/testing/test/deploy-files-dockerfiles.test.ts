/** Static checks of the two Dockerfiles and what they build from (no Docker needed). */
import fs from 'node:fs';
import path from 'node:path';
import { exists, read, root, SECRET_NAME, SERVICES } from './deploy-files';
import { all, envPairs, parseDockerfile } from './dockerfile';
import { supportedMajors } from './node-versions';

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
    // the service resolves its migrations as <dist>/../migrations
    // (services/<service>/src/migrations.ts, used by main.ts)
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
