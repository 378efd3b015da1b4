// Stalls of the service thread during a measurement: event-loop delay and GC pauses.
import {
  constants,
  monitorEventLoopDelay,
  performance,
  PerformanceObserver,
} from 'node:perf_hooks';

/**
 * Answers the load generator's 'stalls-start' / 'stalls-stop' (searches.mjs timed()) on the
 * service's thread; true when `ask` was one of them.
 */
export async function answerStalls(stalls, ask, worker) {
  if (ask === 'stalls-start') {
    await stalls.start();
    worker.postMessage('started');
  } else if (ask === 'stalls-stop') {
    worker.postMessage(await stalls.stop());
  } else return false;
  return true;
}

export function createStallMonitor() {
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
      delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      gc = { count: 0, total: 0, max: 0, major: 0 };
    },
    /** the figures since start() */
    async stop() {
      delay.disable();
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

/**
 * The load generator's own load between start() and stop(), measured on its thread: the
 * share of the time it was busy, its event-loop delay and its GC pauses. A pause of the
 * generator is added to the measured latency of every request in flight, and a busy one
 * bounds a closed loop of clients. stop() resolves with { busy, gcMax, text }.
 */
export function createOwnLoad() {
  const monitor = createStallMonitor();
  let elu0 = null;
  return {
    async start() {
      elu0 = performance.eventLoopUtilization();
      await monitor.start();
    },
    async stop() {
      const g = await monitor.stop();
      const busy = performance.eventLoopUtilization(elu0).utilization;
      return {
        busy,
        gcMax: g.gcMax,
        text:
          `load generator busy ${(busy * 100).toFixed(0)} % of its thread (event-loop delay p99 ${g.delayP99.toFixed(1)} ms, max ${g.delayMax.toFixed(1)} ms; ` +
          `GC ${g.gcCount} pauses, ${g.gcTotal.toFixed(0)} ms in all, longest ${g.gcMax.toFixed(1)} ms, ${g.gcMajor} major)`,
      };
    },
  };
}
