import { errorText } from '../error-text';
import type { Logger } from '../logger';
import { listenToChannel, type ChannelListener, type ListenConnection } from '../pg/listen';
import { createWakeup } from './wakeup';

interface WorkerLoopBase {
  /**
   * one round of work (claim → process → record); resolves true when more is probably due now,
   * 'finished' when this loop has no work left at all (it ends; see run())
   */
  step(): Promise<boolean | 'finished'>;
  /** loops running `step` side by side (default 1) */
  loops?: number;
  /** the sleep between rounds when there was nothing to do, unless a NOTIFY wakes the loop */
  pollIntervalMs: number;
  /** wake the loop on NOTIFY of this channel (and whenever LISTEN is set up again) */
  listen?: { channel: string; open: () => Promise<ListenConnection> };
  logger: Pick<Logger, 'error' | 'warn'>;
  /** periodic upkeep between rounds (deleting old rows …); its failure is logged at warn */
  housekeeping?: { everyMs: number; run(): Promise<void>; failureMessage: string };
}

/** What a round that throws does. */
type OnFailure =
  | {
      /** logged, and the loop goes on after pollIntervalMs (the default) */
      onFailure?: 'log';
      /** logged at error level with the error */
      failureMessage: string;
    }
  | {
      /**
       * the loop ends, unlogged: run() rejects with the error, for a supervisor to log and to
       * start the loop again when it sees fit
       */
      onFailure: 'end';
    };

export type WorkerLoopOptions = WorkerLoopBase & OnFailure;

export interface WorkerLoop {
  /**
   * runs the loop in the background (run() unawaited: an end by failure, onFailure 'end', is an
   * unhandled rejection, never silent); nothing when it runs
   */
  start(): void;
  /**
   * Starts the loop unless it runs, and answers when it ends: resolves once every loop has
   * stopped (stop()) or finished (a step said 'finished'), rejects with the error of a round
   * that ended it (onFailure 'end'). A call while it runs answers that run.
   */
  run(): Promise<void>;
  /** ends every loop after its current round */
  stop(): Promise<void>;
  /** ends the current sleep (work was just queued) */
  wake(): void;
}

/**
 * The background loop both services' workers share: rounds of `step` while there is work, a
 * sleep of pollIntervalMs (ended early by a NOTIFY) when there is none, housekeeping now and
 * then, errors logged and survived (or, onFailure 'end', ending the loop for its supervisor),
 * and a stop that lets the round in flight finish.
 */
export function createWorkerLoop(opts: WorkerLoopOptions): WorkerLoop {
  /** new for each run: a wake-up left from before it (a stop's) must not cut its first sleep */
  let wakeup = createWakeup();
  const loopCount = opts.loops ?? 1;
  let running = false;
  /** the run under way (every loop, then the listener's stop); null when none */
  let current: Promise<void> | null = null;
  /** the error that ended the run under way (onFailure 'end') */
  let failure: { err: unknown } | null = null;
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
      let more: boolean | 'finished' = false;
      try {
        more = await opts.step();
      } catch (err) {
        if (opts.onFailure === 'end') {
          failure ??= { err };
          running = false;
          wakeup.wake(); // the other loops end too
          return;
        }
        opts.logger.error({ err: errorText(err) }, opts.failureMessage);
      }
      if (more === 'finished') return;
      await upkeep();
      if (running && !more) await wakeup.wait(opts.pollIntervalMs);
    }
  }

  async function ended(loops: Array<Promise<void>>): Promise<void> {
    await Promise.all(loops);
    running = false;
    await listener?.stop();
    listener = null;
    current = null;
    const cause = failure;
    failure = null;
    if (cause) throw cause.err;
  }

  function run(): Promise<void> {
    if (current) return current;
    running = true;
    wakeup = createWakeup(); // the run's first round comes at once, whatever was woken before
    if (opts.listen)
      listener = listenToChannel({
        channel: opts.listen.channel,
        open: opts.listen.open,
        onNotify: () => wakeup.wake(),
        onListening: () => wakeup.wake(),
        logger: opts.logger,
      });
    current = ended(Array.from({ length: loopCount }, () => loop()));
    return current;
  }

  return {
    start() {
      void run();
    },
    run,
    async stop() {
      running = false;
      wakeup.wake();
      await current?.catch(() => {});
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
