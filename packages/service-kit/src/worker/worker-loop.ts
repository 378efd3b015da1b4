import { errorText } from '../error-text';
import type { Logger } from '../logger';
import { listenToChannel, type ChannelListener, type ListenConnection } from '../pg/listen';
import { createWakeup } from './wakeup';

export interface WorkerLoopOptions {
  /** one round of work (claim → process → record); resolves true when more is probably due now */
  step(): Promise<boolean>;
  /** loops running `step` side by side (default 1) */
  loops?: number;
  /** the sleep between rounds when there was nothing to do, unless a NOTIFY wakes the loop */
  pollIntervalMs: number;
  /** wake the loop on NOTIFY of this channel (and whenever LISTEN is set up again) */
  listen?: { channel: string; open: () => Promise<ListenConnection> };
  logger: Pick<Logger, 'error' | 'warn'>;
  /** logged at error level when a round throws; the loop goes on */
  failureMessage: string;
  /** periodic upkeep between rounds (deleting old rows …); its failure is logged at warn */
  housekeeping?: { everyMs: number; run(): Promise<void>; failureMessage: string };
}

export interface WorkerLoop {
  start(): void;
  /** ends every loop after its current round */
  stop(): Promise<void>;
  /** ends the current sleep (work was just queued) */
  wake(): void;
}

/**
 * The background loop both services' workers share: rounds of `step` while there is work, a
 * sleep of pollIntervalMs (ended early by a NOTIFY) when there is none, housekeeping now and
 * then, errors logged and survived, and a stop that lets the round in flight finish.
 */
export function createWorkerLoop(opts: WorkerLoopOptions): WorkerLoop {
  const wakeup = createWakeup();
  let running = false;
  let loops: Array<Promise<void>> = [];
  let listener: ChannelListener | null = null;
  let lastUpkeep = 0;

  async function upkeep(): Promise<void> {
    const house = opts.housekeeping;
    if (!house || Date.now() - lastUpkeep < house.everyMs) return;
    lastUpkeep = Date.now();
    try {
      await house.run();
    } catch (err) {
      opts.logger.warn({ err: errorText(err) }, house.failureMessage);
    }
  }

  async function loop(): Promise<void> {
    while (running) {
      let more = false;
      try {
        more = await opts.step();
      } catch (err) {
        opts.logger.error({ err: errorText(err) }, opts.failureMessage);
      }
      await upkeep();
      if (running && !more) await wakeup.wait(opts.pollIntervalMs);
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      if (opts.listen)
        listener = listenToChannel({
          channel: opts.listen.channel,
          open: opts.listen.open,
          onNotify: () => wakeup.wake(),
          onListening: () => wakeup.wake(),
          logger: opts.logger,
        });
      loops = Array.from({ length: opts.loops ?? 1 }, () => loop());
    },
    async stop() {
      running = false;
      wakeup.wake();
      await Promise.all(loops);
      loops = [];
      await listener?.stop();
      listener = null;
    },
    wake() {
      wakeup.wake();
    },
  };
}

/**
 * Runs rounds until `isEmpty` says no work is left (tests, tools, shutdown), sleeping a
 * little after a round that did nothing (the work is held by another worker).
 */
export async function drainWork(opts: {
  /** one round; true when it did some work */
  step(): Promise<boolean>;
  isEmpty(): Promise<boolean>;
  timeoutMs: number;
  /** names the work in the timeout's error: "<what> not drained in time" */
  what: string;
}): Promise<void> {
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    const progressed = await opts.step();
    if (await opts.isEmpty()) return;
    if (Date.now() > deadline) throw new Error(`${opts.what} not drained in time`);
    if (!progressed) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
