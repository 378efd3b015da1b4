import { Router, type Request } from 'express';
import { docsPage, DOCS_INIT_SCRIPT, rootJson, rootPage, type DocsLinks } from './docs-pages';
import { SWAGGER_UI_DIR, SWAGGER_UI_FILES } from './swagger-ui-assets';

/**
 * Content-Security-Policy of the docs page: scripts, styles, images and fonts only from this
 * service (a page that tried a CDN would fail in the browser, not only offline). Requests
 * made with "Try it out" may go to the document's servers.
 */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  'connect-src *',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const HTML = 'text/html; charset=utf-8';

function requestPath(req: Request): string {
  const url = req.originalUrl;
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/**
 * The API docs of a service, mounted at the app's root before its other routes:
 * GET /docs renders the OpenAPI document at `openapiPath` with Swagger UI (swagger-ui-dist,
 * served from node_modules at /docs/assets/...), and GET / links to /docs and the document
 * (HTML for browsers, JSON otherwise). Any other path falls through to the app.
 */
export function docsRouter(opts: { title: string; openapiPath?: string }): Router {
  const links: DocsLinks = { title: opts.title, openapiPath: opts.openapiPath ?? '/openapi.json' };
  const router = Router({ caseSensitive: true });

  router.get('/', (req, res) => {
    const html = req.accepts(['json', 'html']) === 'html';
    res
      .status(200)
      .set('Vary', 'Accept')
      .set('Cache-Control', 'no-cache')
      .type(html ? HTML : 'application/json; charset=utf-8')
      .send(html ? rootPage(links) : rootJson(links));
  });

  router.get('/docs', (req, res) => {
    res
      .status(200)
      .set('Content-Security-Policy', DOCS_CSP)
      .set('Cache-Control', 'no-cache')
      .type(HTML)
      .send(docsPage(links, requestPath(req)));
  });

  router.get('/docs/assets/docs-init.js', (_req, res) => {
    res
      .status(200)
      .set('Cache-Control', 'no-cache')
      .type('text/javascript; charset=utf-8')
      .send(DOCS_INIT_SCRIPT);
  });

  router.get('/docs/assets/:file', (req, res, next) => {
    const file = String(req.params.file);
    if (!SWAGGER_UI_FILES.has(file)) return next();
    // root: the package lives under node_modules/.pnpm, which send would refuse as a dotfile path
    res.sendFile(file, { root: SWAGGER_UI_DIR, maxAge: '1d' }, (err) => {
      if (err) next(err);
    });
  });

  return router;
}
