import type http from 'node:http';
import type { Browser } from 'playwright-core';
import { launchChromium } from './chromium';
import { listen } from './listen';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every operation of an OpenAPI document as "GET /path", in document order. */
export function documentedOperations(doc: Record<string, unknown>): string[] {
  const paths = doc.paths as Record<string, Record<string, unknown>>;
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m) => METHODS.includes(m))
      .map((m) => `${m.toUpperCase()} ${path}`),
  );
}

export interface RenderedDocs {
  /** the operations Swagger UI shows, as "GET /path" */
  operations: string[];
  /** requests the page made to any other origin (a CDN, a validator, telemetry) */
  foreignRequests: string[];
  /** uncaught errors and console errors of the page (CSP violations among them) */
  errors: string[];
}

/** Opens a docs page (Swagger UI) and reads what it lists once the document is rendered. */
export async function readDocsPage(browser: Browser, url: string): Promise<RenderedDocs> {
  const origin = new URL(url).origin;
  const page = await browser.newPage();
  const foreignRequests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).origin !== origin && !r.url().startsWith('data:'))
      foreignRequests.push(r.url());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  try {
    const response = await page.goto(url, { waitUntil: 'load' });
    if (response?.status() !== 200) throw new Error(`${url} answered ${response?.status()}`);
    await page.locator('.swagger-ui .info .title').waitFor({ timeout: 15000 });
    await page.locator('.opblock').first().waitFor({ timeout: 15000 });
    const blocks = await page.locator('.opblock').all();
    const operations: string[] = [];
    for (const block of blocks) {
      if (!(await block.isVisible())) continue;
      const method = await block.locator('.opblock-summary-method').textContent();
      const path = await block.locator('.opblock-summary-path').getAttribute('data-path');
      operations.push(`${(method ?? '').trim()} ${path ?? ''}`);
    }
    return { operations, foreignRequests, errors };
  } finally {
    await page.close();
  }
}

/**
 * Serves `handler` on a free loopback port, opens each of `paths` in headless Chromium and
 * reads what the docs page lists; the server and the browser are closed afterwards.
 */
export async function readDocsPagesOf(
  handler: http.RequestListener,
  paths: string[],
): Promise<Array<{ url: string; page: RenderedDocs }>> {
  const server = await listen(handler);
  const browser = await launchChromium();
  try {
    const out: Array<{ url: string; page: RenderedDocs }> = [];
    for (const path of paths) {
      const url = `${server.url}${path}`;
      out.push({ url, page: await readDocsPage(browser, url) });
    }
    return out;
  } finally {
    await browser.close();
    await server.close();
  }
}
