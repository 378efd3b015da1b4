import path from 'node:path';

/**
 * The files of the installed npm package swagger-ui-dist that the docs page loads, served
 * from node_modules (no CDN); nothing else of the package is reachable.
 */
export const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

export const SWAGGER_UI_FILES: ReadonlySet<string> = new Set([
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'favicon-16x16.png',
  'favicon-32x32.png',
]);
