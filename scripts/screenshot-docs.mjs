#!/usr/bin/env node
// Screenshot of a running service's API docs page, with the Chromium the tests use
// (/usr/bin/chromium, or CHROMIUM_PATH). It starts no service: run `pnpm start` first.
//   node scripts/screenshot-docs.mjs [url] [file]
//   node scripts/screenshot-docs.mjs http://127.0.0.1:8081/docs search-docs.png
// Needs the built packages (`pnpm build`; `pnpm start` builds them).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { launchChromium } = require('../packages/testing/dist/chromium.js');

const url = process.argv[2] ?? 'http://127.0.0.1:8080/docs';
const file = process.argv[3] ?? 'docs.png';

const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const response = await page.goto(url, { waitUntil: 'load' });
  if (response?.status() !== 200) throw new Error(`${url} answered ${response?.status()}`);
  await page.locator('.opblock').first().waitFor({ timeout: 15000 });
  const operations = await page.locator('.opblock').count();
  await page.screenshot({ path: file, fullPage: true });
  process.stdout.write(`${file}: ${url} (${operations} operations listed)\n`);
} finally {
  await browser.close();
}
