// The V8 CPU profiler of this thread (node:inspector), for BENCH_CPU_PROFILE, and its sampling
// heap profiler (every allocation sampled, also those collected since), for BENCH_HEAP_PROFILE.
import fs from 'node:fs';
import inspector from 'node:inspector';
import path from 'node:path';

/**
 * Starts and stops the V8 CPU profiler (with cpu) and the sampling heap profiler (with heap) of
 * this thread (node:inspector); writes a .cpuprofile and a .heapprofile.
 */
export function inspectorProfiler({ cpu = true, heap = false } = {}) {
  let session;
  const post = (method, params) =>
    new Promise((resolve, reject) =>
      session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))),
    );
  const write = (dir, ext, data) => {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `search-bench-${Date.now()}.${ext}`);
    fs.writeFileSync(file, JSON.stringify(data));
    return file;
  };
  return {
    async start() {
      session = new inspector.Session();
      session.connect();
      if (cpu) {
        await post('Profiler.enable');
        await post('Profiler.setSamplingInterval', { interval: 200 });
        await post('Profiler.start');
      }
      if (heap) {
        await post('HeapProfiler.enable');
        await post('HeapProfiler.startSampling', {
          samplingInterval: 16384,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        });
      }
    },
    /** the files written, in dir */
    async stop(dir) {
      const files = [];
      if (cpu) files.push(write(dir, 'cpuprofile', (await post('Profiler.stop')).profile));
      if (heap)
        files.push(write(dir, 'heapprofile', (await post('HeapProfiler.stopSampling')).profile));
      session.disconnect();
      return files.join(', ');
    },
  };
}
