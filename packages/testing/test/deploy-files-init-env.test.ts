/** scripts/init-env.sh, run for real (and `compose config` where Docker is installed). */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { envFile, read, root, SECRET_NAME } from './deploy-files';

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
