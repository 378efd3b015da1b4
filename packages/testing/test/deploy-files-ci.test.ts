/** Static checks of the GitHub Actions workflow. */
import { parse } from 'yaml';
import { compose, exists, read, SERVICES } from './deploy-files';
import { supportedMajors } from './node-versions';

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
