// Stalls of the service thread during a measurement: event-loop delay and GC pauses.
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

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
