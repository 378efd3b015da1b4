import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Router, type Request } from 'express';

/**
 * A service's OpenAPI document, `services/<service>/openapi/openapi.json` (next to its src/ and
 * dist/, so `serviceDir` is `path.join(__dirname, '..')` from either); undefined when absent.
 */
export function readOpenApiFile(serviceDir: string): Buffer | undefined {
  try {
    return readFileSync(path.join(serviceDir, 'openapi', 'openapi.json'));
  } catch {
    return undefined;
  }
}

export interface OpenApiRouterOptions {
  /**
   * The URL `servers[0]` names for this request (serviceAddress gives the services' rule);
   * without it the document is served as given.
   */
  server?: (req: Request) => string;
}

/** Documents kept, one per distinct servers URL; the oldest made is dropped first. */
const KEPT_DOCUMENTS = 16;

/**
 * GET /openapi.json without a token (the docs page reads it). With `server`, the document is
 * the given one with `servers` naming what `server(req)` answers (the rest of the first
 * entry and every other member unchanged), serialised with JSON.stringify once per distinct
 * URL, and marked `Cache-Control: no-cache` (the body may differ per Host); without it, the
 * given bytes. With no document the path is left to the app (its 404).
 */
export function openApiRouter(
  document: Buffer | string | undefined,
  opts: OpenApiRouterOptions = {},
): Router {
  const router = Router();
  if (document === undefined) return router;
  const given = Buffer.isBuffer(document) ? document : Buffer.from(document, 'utf8');
  const { server } = opts;
  if (server === undefined) {
    const headers = jsonHeaders(given);
    router.get('/openapi.json', (_req, res) => {
      res.writeHead(200, headers);
      res.end(given);
    });
    return router;
  }
  const parsed = JSON.parse(given.toString('utf8')) as Record<string, unknown>;
  const first = (Array.isArray(parsed.servers) ? parsed.servers[0] : undefined) as
    object | undefined;
  const made = new Map<string, { body: Buffer; headers: Record<string, string> }>();
  const documentFor = (url: string) => {
    let doc = made.get(url);
    if (doc === undefined) {
      const body = Buffer.from(JSON.stringify({ ...parsed, servers: [{ ...first, url }] }), 'utf8');
      doc = { body, headers: { ...jsonHeaders(body), 'Cache-Control': 'no-cache' } };
      if (made.size >= KEPT_DOCUMENTS) made.delete(made.keys().next().value!);
      made.set(url, doc);
    }
    return doc;
  };
  router.get('/openapi.json', (req, res) => {
    const { body, headers } = documentFor(server(req));
    res.writeHead(200, headers);
    res.end(body);
  });
  return router;
}

function jsonHeaders(body: Buffer): Record<string, string> {
  return {
    'Content-Type': 'application/json;charset=utf-8',
    'Content-Length': String(body.length),
  };
}
