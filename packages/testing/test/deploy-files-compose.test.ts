/** Static checks of the compose stack and .env.example (no Docker needed). */
import { parse } from 'yaml';
import { compose, composeText, envFile, exists, read, SECRET_NAME, SERVICES } from './deploy-files';

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
