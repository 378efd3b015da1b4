// The parent's side of the child processes: each runs the entry point in a role (see
// servers.mjs and render-timings.mjs), answers its port and, asked, its CPU time.
import { fork } from 'node:child_process';
import { entryFile } from './settings.mjs';

/** Starts a child in this role; resolves with its first message ({ port }) and the process. */
export function child(role, env, children, message) {
  return new Promise((resolve, reject) => {
    const c = fork(entryFile, [role], {
      // e.g. FEED_BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" to profile the servers
      execArgv: (process.env.FEED_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
      env,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.push(c);
    c.once('message', (m) => resolve({ ...m, process: c }));
    c.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)));
    if (message) c.send(message);
  });
}

/** Runs a child in this role to its end, its output on ours. */
export function runToEnd(role, env) {
  return new Promise((resolve, reject) => {
    const c = fork(entryFile, [role], { env, stdio: 'inherit' });
    c.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`render timings exited with ${code}`)),
    );
  });
}

/** Disconnecting lets a child exit normally (so --cpu-prof profiles get written); then kill. */
export async function stopChildren(children) {
  await Promise.all(
    children.splice(0).map(
      (c) =>
        new Promise((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          c.once('exit', resolve);
          if (c.connected) c.disconnect();
          setTimeout(() => c.kill('SIGKILL'), 3000).unref();
        }),
    ),
  );
}

/** The child's CPU time so far (µs, user + system). */
export function cpuOf(c) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('a server process did not answer')), 5000);
    const on = (m) => {
      if (m && m.cpu) {
        clearTimeout(timer);
        c.off('message', on);
        resolve(m.cpu.user + m.cpu.system);
      }
    };
    c.on('message', on);
    c.send('cpu');
  });
}
