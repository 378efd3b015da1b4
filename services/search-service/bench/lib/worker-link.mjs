// The load generator's (child process's, host.mjs startLoadGenerator) line to the service's
// process: lines to print, questions (see host.mjs) and their answers, over the IPC channel.

export const report = (msg) => process.send({ say: msg });

export const ask = (what) =>
  new Promise((resolve) => {
    process.once('message', resolve);
    process.send({ ask: what });
  });

/**
 * Runs the load generator's work, then ends its process: 0 when it resolved (after every
 * message before has gone), 1 when it failed (the failure reported first).
 */
export function runAsLoadGenerator(work) {
  const end = (code) => process.send({ ended: code }, () => process.exit(code));
  work().then(
    () => end(0),
    (err) => {
      report(`load generator failed: ${err?.stack ?? err}`);
      end(1);
    },
  );
}
