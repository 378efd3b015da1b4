import request from 'supertest';
import type { SearchApp } from '../../src/app';
import { runAdminCli } from '../../src/cli/admin';

/** SEARCH_ADMIN_TOKEN of the test apps. */
export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

/** Requests to the admin API (paths below /admin) with the admin token. */
export function adminApi(app: SearchApp) {
  const call = (method: 'get' | 'post' | 'patch' | 'delete') => (path: string) =>
    request(app)[method](`/admin${path}`).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
  return { get: call('get'), post: call('post'), patch: call('patch'), delete: call('delete') };
}

/** The admin CLI against the service at `url`, with the admin token: its exit code and output. */
export async function adminCli(url: string, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdminCli(
    argv,
    { SEARCH_ADMIN_URL: url, SEARCH_ADMIN_TOKEN: ADMIN_TOKEN },
    { out: (t) => out.push(t), err: (t) => err.push(t), fetch },
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}
