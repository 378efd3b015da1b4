import { Writable } from 'node:stream';
import { createLogger, runMain } from '../src/logger';

/** A logger of `service` at `level` whose JSON lines are kept in `lines`. */
export function captureLogs(service: string, level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  return { logger: createLogger(service, level, stream), lines };
}

/** runMain('svc', start) with a logger at `level`: the exit code (-1: no exit) and the lines. */
export async function runMainLogged(level: string, start: () => Promise<unknown>) {
  const { logger, lines } = captureLogs('svc', level);
  let code = -1;
  await runMain('svc', start, { logger, exit: (c) => (code = c) });
  return { code, lines };
}
