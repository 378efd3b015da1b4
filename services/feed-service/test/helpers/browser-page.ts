/** The page that client-browser.test.ts runs @hub/client in: origin, HTML, modules, report. */
import fs from 'node:fs';
import path from 'node:path';
import { transformSync } from '@swc/core';

/** A made-up origin, answered by page.route(): the page, the client's modules and the service. */
export const ORIGIN = 'http://client.test';
/** The client's base URL in the page: same origin as the page, so no CORS is involved. */
export const FEED_BASE = `${ORIGIN}/feed`;
export const JSON_TYPE = 'application/vnd.vendor.resource-1.0+json;charset=utf-8';

const PACKAGES = path.join(__dirname, '../../../../packages');
/**
 * URL path prefix → source directory. `/client/contracts.js` imports
 * `../../contracts/src/feed/errors.js`, which the browser resolves to `/contracts/src/...`.
 */
const MODULE_ROOTS: Record<string, string> = {
  '/client/': path.join(PACKAGES, 'client/src'),
  '/contracts/src/': path.join(PACKAGES, 'contracts/src'),
};

/** The `.ts` source of a module URL path, or undefined when it is no module of ours. */
export function sourceOf(urlPath: string): string | undefined {
  if (!urlPath.endsWith('.js')) return undefined;
  for (const [prefix, dir] of Object.entries(MODULE_ROOTS)) {
    if (!urlPath.startsWith(prefix)) continue;
    const file = path.join(dir, `${urlPath.slice(prefix.length, -'.js'.length)}.ts`);
    if (file.startsWith(dir + path.sep) && fs.existsSync(file)) return file;
  }
  return undefined;
}

/** TypeScript → ES module JavaScript: types stripped, import specifiers kept as written. */
export function toBrowserModule(file: string): string {
  return transformSync(fs.readFileSync(file, 'utf8'), {
    filename: file,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'es6' },
    isModule: true,
    sourceMaps: false,
  }).code;
}

export const PAGE =
  '<!doctype html><html><head><meta charset="utf-8"><title>client</title></head><body></body></html>';

/** What the page reports: plain data only. */
export interface BrowserRun {
  published: { status: number; created: boolean; location: string; title: string; id: string };
  firstRead: {
    status: number;
    notModified: boolean;
    contentType: string;
    etagIsWeak: boolean;
    found: { title: string; link: string; creator: string } | undefined;
  };
  secondRead: {
    status: number;
    notModified: boolean;
    sameEtag: boolean;
    sameFeed: boolean;
    found: boolean;
  };
  errors: {
    name: string;
    isFeedError: boolean;
    status: number;
    code: string;
    text: string;
    detail: string | undefined;
  }[];
  fetches: string[];
}

/** The client's module as the page has it (types only: it is loaded by the page). */
export type ClientModule = typeof import('@hub/client', { with: { 'resolution-mode': 'import' } });
