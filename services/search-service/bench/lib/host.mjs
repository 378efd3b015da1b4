// The service's side: the service as main.ts composes it, on a free port, the load generator's
// process, and the answers to its questions (stalls, VACUUM, the bare-INSERT floor's server, the
// process's RSS, a second instance's start-up).
import { fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
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
 * The load generator: `file` (a path) run again in a child process, with `data` in its
 * BENCH_LOAD_GENERATOR variable (isLoadGenerator(), loadGeneratorData()). Its own process, not
 * a thread of the service's: a worker thread shares V8's helper threads with its process, so
 * the generator's garbage collections were counted as the service's "other threads", and its
 * RSS as the service's. It speaks to this process through worker-link.mjs over the IPC
 * channel; the returned object has the parts of a Worker the callers use (postMessage, on).
 */
export function startLoadGenerator(file, data) {
  const child = fork(file, process.argv.slice(2), {
    env: { ...process.env, BENCH_LOAD_GENERATOR: JSON.stringify(data) },
    serialization: 'advanced',
  });
  return {
    postMessage: (m) => child.send(m),
    on: (event, listener) => child.on(event, listener),
  };
}

/** Whether this process is the load generator (startLoadGenerator's child). */
export const isLoadGenerator = () => process.env.BENCH_LOAD_GENERATOR !== undefined;

/** What startLoadGenerator gave the load generator. */
export const loadGeneratorData = () => JSON.parse(process.env.BENCH_LOAD_GENERATOR);

/**
 * Runs the load generator (the entry point in a child process, startLoadGenerator) and
 * answers it; resolves when it has exited with code 0.
 */
export async function runLoadGenerator({ generatorData, sql, startInstance, floor }) {
  const worker = startLoadGenerator(entryFile, generatorData);
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
