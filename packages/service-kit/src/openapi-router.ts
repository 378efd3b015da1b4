import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Router } from 'express';

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

/**
 * GET /openapi.json: the document's bytes as given, without a token (the docs page reads it).
 * With no document the path is left to the app (its 404).
 */
export function openApiRouter(document: Buffer | string | undefined): Router {
  const router = Router();
  if (document === undefined) return router;
  const body = Buffer.isBuffer(document) ? document : Buffer.from(document, 'utf8');
  const headers = {
    'Content-Type': 'application/json;charset=utf-8',
    'Content-Length': String(body.length),
  };
  router.get('/openapi.json', (_req, res) => {
    res.writeHead(200, headers);
    res.end(body);
  });
  return router;
}
