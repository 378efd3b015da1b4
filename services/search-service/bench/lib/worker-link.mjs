// The load generator's (worker thread's) line to the main thread: lines to print, questions
// (see host.mjs) and their answers.
import { parentPort } from 'node:worker_threads';

export const report = (msg) => parentPort.postMessage({ say: msg });

export const ask = (what) =>
  new Promise((resolve) => {
    parentPort.once('message', resolve);
    parentPort.postMessage({ ask: what });
  });
