// The two services as child processes: their addresses and environments, start, wait until
// ready, stop.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { root } from './state.mjs';

/** The address the services listen on, and the one to reach them at from this machine. */
export function bindAddress(env = process.env) {
  const host = (env.HOST?.trim() || '127.0.0.1').replace(/^\[(.*)\]$/, '$1');
  const wildcard = host === '0.0.0.0' || host === '::';
  const local = wildcard ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return { host, local };
}

/**
 * Each service's environment: where it listens, its database, its secret and its public URLs.
 * feed and search: { port, db, url }.
 */
export function serviceEnvs({ host, feed, search, creds, env = process.env }) {
  const listen = (service) => ({
    HOST: host,
    PORT: String(service.port),
    DATABASE_URL: service.db,
  });
  return {
    feed: {
      ...listen(feed),
      FEED_JWT_SECRET: creds.feedJwtSecret,
      FEED_BASE_URL: env.FEED_BASE_URL ?? feed.url,
    },
    search: {
      ...listen(search),
      SEARCH_ADMIN_TOKEN: creds.searchAdminToken,
      SEARCH_BASE_URL: env.SEARCH_BASE_URL ?? search.url,
      SEARCH_URL: env.SEARCH_URL ?? search.url,
      THUMBNAIL_URL: env.THUMBNAIL_URL ?? `${search.url}/thumbnails`,
    },
  };
}

/** Runs a service's built dist/main.js; onExit(code, signal) when it ends. */
export function startService(script, env, onExit) {
  const child = spawn(process.execPath, [script], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.on('exit', onExit);
  return child;
}

/** Polls url/readyz every 100 ms for up to a minute; fails early if the child exits. */
export async function waitReady(url, child, name) {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode}`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await sleep(100);
  }
  throw new Error(`${name} did not become ready at ${url}/readyz`);
}

/** SIGTERM to each child still running (SIGKILL after 12 s); resolves when all have exited. */
export function stopServices(children) {
  return Promise.all(
    children.map(
      (c) =>
        new Promise((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          c.once('exit', resolve);
          c.kill('SIGTERM');
          setTimeout(() => c.kill('SIGKILL'), 12_000).unref();
        }),
    ),
  );
}
