// The main thread's side: the service as main.ts composes it, on a free port, and the answers
// to the load generator's questions (stalls, VACUUM, the bare-INSERT floor's server, the
// process's RSS, a second instance's start-up).
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { startFloorServer } from './floor.mjs';
import { listen } from './listen.mjs';
import { inspectorProfiler } from './profiler.mjs';
import { answerStalls, createStallMonitor } from './stalls.mjs';
import { entryFile, say } from './settings.mjs';

/**
 * startInstance(): one service instance as main.ts composes it (composeService of the built
 * compose.js, kit: @hub/service-kit): pool, engine (with its folder), thumbnails, app.
 */
export function instanceStarter({ composeService, kit, databaseUrl, config, logger }) {
  return async function startInstance() {
    const pool = kit.createPool(databaseUrl, config.databasePoolSize);
    const metrics = kit.createMetrics('search-service');
    const service = composeService({ config, pool, logger, metrics });
    service.start();
    const server = await listen(service.app);
    return {
      port: server.port,
      async stop() {
        await server.close();
        await service.stop();
        await pool.end();
      },
    };
  };
}

/**
 * Runs the load generator (the entry point in a worker thread) and answers it; resolves when
 * it has exited with code 0.
 */
export async function runLoadGenerator({ workerData, sql, startInstance, floor }) {
  const worker = new Worker(entryFile, { workerData });
  const done = new Promise((resolve, reject) => {
    worker.on('error', reject);
    worker.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`load generator exit ${code}`)),
    );
  });
  const stalls = createStallMonitor();
  let floorServer = null;
  // BENCH_CPU_PROFILE / BENCH_HEAP_PROFILE: the folder the profiles go to
  const profileDir = process.env.BENCH_CPU_PROFILE || process.env.BENCH_HEAP_PROFILE;
  const profiler = inspectorProfiler({
    cpu: Boolean(process.env.BENCH_CPU_PROFILE),
    heap: Boolean(process.env.BENCH_HEAP_PROFILE),
  });
  let profiled = '';
  worker.on('message', async (m) => {
    if (m.say) say(m.say);
    await answerStalls(stalls, m.ask, worker);
    if (m.ask?.profile === 'start') {
      profiled = m.ask.label;
      if (profileDir) await profiler.start();
      worker.postMessage('started');
    } else if (m.ask?.profile === 'stop') {
      const file = profileDir ? await profiler.stop(profileDir) : null;
      if (file) say(`profile of the service thread (${profiled}): ${file}`);
      worker.postMessage(file);
    }
    if (m.ask === 'floor-start') {
      floorServer = await startFloorServer(floor.databaseUrl, floor.poolSize);
      worker.postMessage({ port: floorServer.port });
    } else if (m.ask === 'floor-stop') {
      await floorServer.stop();
      worker.postMessage('stopped');
    } else if (m.ask === 'rss') {
      worker.postMessage(process.memoryUsage().rss);
    }
    if (m.ask === 'vacuum') {
      await sql.query('VACUUM (ANALYZE)');
      await sql.query('CHECKPOINT');
      worker.postMessage('done');
    } else if (m.ask?.startInstance) {
      const t0 = performance.now();
      const second = await startInstance();
      const listenMs = performance.now() - t0;
      const res = await fetch(`http://127.0.0.1:${second.port}${m.ask.path}`);
      await res.text();
      const firstSearchMs = performance.now() - t0;
      await second.stop();
      worker.postMessage({ listenMs, firstSearchMs });
    }
  });
  await done;
  stalls.close();
}
