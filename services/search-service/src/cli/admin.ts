/**
 * `pnpm --filter search-service admin <command>`: the admin API from a shell.
 *
 *   create     [--max-documents N] [--max-api-calls N] [--thumbnail-size WxH]
 *   list       [--limit N] [--after ID]
 *   get        <collection_id>
 *   rotate-key <collection_id>
 *   set-limits <collection_id> [--max-documents N] [--max-api-calls N] [--thumbnail-size WxH]
 *   delete     <collection_id>
 *   dead-letters       [--collection ID] [--limit N] [--after ID]
 *   retry-dead-letters [--collection ID] [dead_letter_id ...]   (none: every dead letter)
 *
 * Talks to SEARCH_ADMIN_URL (default http://127.0.0.1:8081) with SEARCH_ADMIN_TOKEN; prints the
 * JSON answer; exits 1 on an error answer, 2 on a usage error.
 */

import { parseArgs } from 'node:util';
import { errorText } from '@hub/service-kit';

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  fetch: typeof fetch;
}

const USAGE = `usage: admin <command> [options]
  create     [--max-documents N] [--max-api-calls N] [--thumbnail-size WxH]
  list       [--limit N] [--after ID]
  get        <collection_id>
  rotate-key <collection_id>
  set-limits <collection_id> [--max-documents N] [--max-api-calls N] [--thumbnail-size WxH]
  delete     <collection_id>
  dead-letters       [--collection ID] [--limit N] [--after ID]
  retry-dead-letters [--collection ID] [dead_letter_id ...]   (no id and no --collection: all)
environment: SEARCH_ADMIN_URL (default http://127.0.0.1:8081), SEARCH_ADMIN_TOKEN (required)`;

class UsageError extends Error {}

/** The limit options and the admin API field each one sets. */
const LIMIT_OPTIONS: Record<string, string> = {
  'max-documents': 'max_documents',
  'max-api-calls': 'max_api_calls',
  'thumbnail-size': 'thumbnail_size',
};

/**
 * A command's arguments: positionals and `--name value` (or `--name=value`) options, of the
 * names it knows only. Checked token by token, so the first problem is the one reported.
 */
function commandArgs(args: string[], known: string[]) {
  const { positionals, tokens } = parseArgs({
    args,
    options: Object.fromEntries(known.map((name) => [name, { type: 'string' as const }])),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const options: Record<string, string> = {};
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    if (!known.includes(token.name)) throw new UsageError(`unknown option ${token.rawName}`);
    if (token.value === undefined) throw new UsageError(`${token.rawName} needs a value`);
    options[token.name] = token.value;
  }
  return { positional: positionals, options };
}

function limitsBody(options: Record<string, string>): Record<string, string | number> {
  const body: Record<string, string | number> = {};
  for (const [option, field] of Object.entries(LIMIT_OPTIONS)) {
    const v = options[option];
    if (v === undefined) continue;
    body[field] = field === 'thumbnail_size' ? v : /^[0-9]+$/.test(v) ? Number(v) : v;
  }
  return body;
}

function oneId(positional: string[]): string {
  if (positional.length !== 1) throw new UsageError('expected one collection id');
  return encodeURIComponent(positional[0]!);
}

/** Runs one command; returns the process exit code. */
export async function runAdminCli(
  argv: string[],
  env: NodeJS.ProcessEnv,
  io: CliIo,
): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (!command || command === 'help' || command === '--help') {
      io.out(USAGE);
      return command ? 0 : 2;
    }
    const token = env.SEARCH_ADMIN_TOKEN?.trim();
    if (!token) throw new UsageError('SEARCH_ADMIN_TOKEN is required');
    const admin = `${(env.SEARCH_ADMIN_URL?.trim() || 'http://127.0.0.1:8081').replace(/\/+$/, '')}/admin`;
    const base = `${admin}/collections`;
    let method = 'GET';
    let url = base;
    let body: Record<string, unknown> | undefined;
    const limitNames = Object.keys(LIMIT_OPTIONS);
    switch (command) {
      case 'create': {
        const { positional, options } = commandArgs(rest, limitNames);
        if (positional.length) throw new UsageError('create takes no collection id');
        method = 'POST';
        body = limitsBody(options);
        break;
      }
      case 'list': {
        const { positional, options } = commandArgs(rest, ['limit', 'after']);
        if (positional.length) throw new UsageError('list takes no collection id');
        const qs = new URLSearchParams();
        if (options.limit) qs.set('limit', options.limit);
        if (options.after) qs.set('after', options.after);
        url = qs.size ? `${base}?${qs.toString()}` : base;
        break;
      }
      case 'get':
        url = `${base}/${oneId(commandArgs(rest, []).positional)}`;
        break;
      case 'rotate-key':
        method = 'POST';
        url = `${base}/${oneId(commandArgs(rest, []).positional)}/rotate-key`;
        break;
      case 'set-limits': {
        const { positional, options } = commandArgs(rest, limitNames);
        method = 'PATCH';
        url = `${base}/${oneId(positional)}`;
        body = limitsBody(options);
        if (!Object.keys(body).length) throw new UsageError('set-limits needs at least one limit');
        break;
      }
      case 'delete':
        method = 'DELETE';
        url = `${base}/${oneId(commandArgs(rest, []).positional)}`;
        break;
      case 'dead-letters': {
        const { positional, options } = commandArgs(rest, ['collection', 'limit', 'after']);
        if (positional.length) throw new UsageError('dead-letters takes no argument');
        const qs = new URLSearchParams();
        if (options.collection) qs.set('collection_id', options.collection);
        if (options.limit) qs.set('limit', options.limit);
        if (options.after) qs.set('after', options.after);
        url = qs.size ? `${admin}/dead-letters?${qs.toString()}` : `${admin}/dead-letters`;
        break;
      }
      case 'retry-dead-letters': {
        const { positional, options } = commandArgs(rest, ['collection']);
        if (!positional.every((id) => /^[0-9]+$/.test(id)))
          throw new UsageError('dead letter ids are numbers');
        method = 'POST';
        url = `${admin}/dead-letters/retry`;
        body = {};
        if (options.collection) body.collection_id = options.collection;
        if (positional.length) body.ids = positional;
        break;
      }
      default:
        throw new UsageError(`unknown command ${command}`);
    }
    const res = await io.fetch(url, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        ...(body ? { 'Content-Type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (res.status === 204)
      io.out(JSON.stringify({ deleted: decodeURIComponent(url.split('/').pop()!) }));
    else if (text) io.out(text);
    if (!res.ok) {
      io.err(`admin API answered ${res.status}`);
      return 1;
    }
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`${e.message}\n${USAGE}`);
      return 2;
    }
    io.err(`admin API request failed: ${errorText(e)}`);
    return 1;
  }
}

if (require.main === module) {
  runAdminCli(process.argv.slice(2), process.env, {
    out: (t) => process.stdout.write(`${t}\n`),
    err: (t) => process.stderr.write(`${t}\n`),
    fetch,
  }).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`admin: ${errorText(err)}\n`);
      process.exit(1);
    },
  );
}
