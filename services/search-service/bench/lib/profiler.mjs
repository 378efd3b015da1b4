// The V8 CPU profiler of this thread (node:inspector), for BENCH_CPU_PROFILE.
import fs from 'node:fs';
import inspector from 'node:inspector';
import path from 'node:path';

/** Starts and stops the V8 CPU profiler of this thread (node:inspector); writes a .cpuprofile. */
export function inspectorProfiler() {
  let session;
  const post = (method, params) =>
    new Promise((resolve, reject) =>
      session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))),
    );
  return {
    async start() {
      session = new inspector.Session();
      session.connect();
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: 200 });
      await post('Profiler.start');
    },
    async stop(dir) {
      const { profile } = await post('Profiler.stop');
      session.disconnect();
      fs.mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `search-bench-${Date.now()}.cpuprofile`);
      fs.writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
}
