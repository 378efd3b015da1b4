// Stalls of the service thread during a measurement: event-loop delay and GC pauses, and
// (BENCH_CPU_PROFILE=<dir>) a CPU profile of the service thread during the first measurement.
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { inspectorProfiler } from './profiler.mjs';
import { say } from './settings.mjs';

export function createStallMonitor() {
  const profileDir = process.env.BENCH_CPU_PROFILE;
  let profiled = null;
  const profiler = inspectorProfiler();
  let delay = null;
  let gc = null;
  const gcObserver = new PerformanceObserver((list) => {
    if (!gc) return;
    for (const e of list.getEntries()) {
      gc.count++;
      gc.total += e.duration;
      gc.max = Math.max(gc.max, e.duration);
      if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) gc.major++;
    }
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  return {
    async start() {
      if (profileDir && !profiled) await profiler.start();
      delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      gc = { count: 0, total: 0, max: 0, major: 0 };
    },
    /** the figures since start() */
    async stop() {
      delay.disable();
      if (profileDir && !profiled) {
        profiled = await profiler.stop(profileDir);
        say(`CPU profile of the service thread (A alone): ${profiled}`);
      }
      const ms = (ns) => ns / 1e6;
      const figures = {
        delayP50: ms(delay.percentile(50)),
        delayP99: ms(delay.percentile(99)),
        delayMax: ms(delay.max),
        gcCount: gc.count,
        gcTotal: gc.total,
        gcMax: gc.max,
        gcMajor: gc.major,
        heapMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
      };
      gc = null;
      return figures;
    },
    close() {
      gcObserver.disconnect();
    },
  };
}
