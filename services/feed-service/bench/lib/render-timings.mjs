// Step 5, in a fresh child process: p50/p99 of the uncached path (one snapshot query +
// render, no cache), called directly, FEED_BENCH_RENDERS times per feed and format.
import { dist, log, RENDERS, require } from './settings.mjs';
import { pct } from './stats.mjs';

export async function renderTimings() {
  const dbUrl = process.env.BENCH_DB;
  const pool = require('@hub/service-kit').createPool(dbUrl, 2);
  const { loadConfig } = require(dist('config.js'));
  const { createItemsRepository } = require(dist('store/items.js'));
  const { createFeedCache } = require(dist('cache/feed-cache.js'));
  const { renderFromStore } = require(dist('domain/read-feed.js'));
  const config = loadConfig({
    DATABASE_URL: dbUrl,
    FEED_JWT_SECRET: process.env.BENCH_SECRET,
    FEED_BASE_URL: 'https://feed.example.com',
  });
  const ctx = {
    config,
    items: createItemsRepository(pool),
    cache: createFeedCache(),
    clock: Date.now,
  };
  // the feed cache is not used: every render runs the query and renders all items
  for (const feed of ['all', 'it']) {
    for (const format of ['json', 'xml']) {
      for (let i = 0; i < 5; i++) await renderFromStore(ctx, feed, format); // warm up
      const wall = [];
      const cpu = [];
      for (let i = 0; i < RENDERS; i++) {
        const c = process.cpuUsage();
        const t = process.hrtime.bigint();
        const rep = await renderFromStore(ctx, feed, format);
        wall.push(Number(process.hrtime.bigint() - t) / 1e6);
        const used = process.cpuUsage(c);
        cpu.push((used.user + used.system) / 1000);
        if (rep.head.length === 0) throw new Error('empty render');
      }
      const path = feed === 'all' ? '/hub/contents' : `/hub/categories/${feed}/contents`;
      const name = format;
      log(
        `  ${path.padEnd(28)} ${name.padEnd(8)}  wall p50 ${pct(wall, 50).padStart(6)} ms  p99 ${pct(wall, 99).padStart(6)} ms   (CPU p50 ${pct(cpu, 50)} ms, p99 ${pct(cpu, 99)} ms)`,
      );
    }
  }
  log(`  (${RENDERS} renders each; target < 20 ms)`);
  await pool.end();
}
