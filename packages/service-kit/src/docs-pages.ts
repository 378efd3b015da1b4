/** The HTML of GET /docs and GET /, and the script that starts Swagger UI on the docs page. */

export interface DocsLinks {
  /** e.g. "feed-service" */
  title: string;
  /** absolute path of the OpenAPI document, e.g. "/openapi.json" */
  openapiPath: string;
}

/**
 * What to put before a path from the service root (the URL `/docs/assets/x.js` without its
 * slash) so the browser finds it from `requestPath`: relative links keep working behind a proxy
 * that adds a path prefix.
 */
export function rootRelative(requestPath: string): string {
  const depth = requestPath.split('/').length - 2;
  return depth > 0 ? '../'.repeat(depth) : './';
}

export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

export function docsPage(links: DocsLinks, requestPath: string): string {
  const root = rootRelative(requestPath);
  const assets = `${root}docs/assets/`;
  const spec = root + links.openapiPath.replace(/^\/+/, '');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(links.title)} API</title>
<link rel="icon" type="image/png" sizes="32x32" href="${assets}favicon-32x32.png">
<link rel="icon" type="image/png" sizes="16x16" href="${assets}favicon-16x16.png">
<link rel="stylesheet" href="${assets}swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-openapi-url="${escapeHtml(spec)}"></div>
<script src="${assets}swagger-ui-bundle.js"></script>
<script src="${assets}docs-init.js"></script>
</body>
</html>
`;
}

/** Starts Swagger UI on the page's OpenAPI document; served as a file so no inline script is needed. */
export const DOCS_INIT_SCRIPT = `window.addEventListener('load', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-openapi-url'),
    domNode: root,
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

/** GET / for a browser: where the docs and the document are. */
export function rootPage(links: DocsLinks): string {
  const title = escapeHtml(links.title);
  const spec = escapeHtml(links.openapiPath.replace(/^\/+/, ''));
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${title}</title></head>
<body>
<h1>${title}</h1>
<ul>
<li><a href="docs">API documentation</a> (/docs)</li>
<li><a href="${spec}">OpenAPI document</a> (${escapeHtml(links.openapiPath)})</li>
</ul>
</body>
</html>
`;
}

/** GET / for anything else: the same links as JSON. */
export function rootJson(links: DocsLinks): string {
  return JSON.stringify({
    service: links.title,
    links: { docs: '/docs', openapi: links.openapiPath },
  });
}
