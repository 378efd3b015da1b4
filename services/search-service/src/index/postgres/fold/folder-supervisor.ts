import { backoffMs, errorText, type Logger } from '@hub/service-kit';

/**
 * Keeps the folder running. The folder runs as one "run" at a time (its worker thread, or its
 * loop on this thread under the ts tests); a run ends by stop() or by dying: the thread exits
 * (a crash, an uncaught error, out of memory) or the loop fails (a round that throws, e.g.
 * Postgres unreachable). A death is logged at error with its cause and the next run starts
 * after a backoff (1 s doubling to 30 s, with jitter; back to 1 s after a run that lived a
 * healthy minute), logged at info. A run ended by stop() (shutdown) is not a death.
 * Without this, a dead folder went unnoticed while the pending tail every search scans grew.
 */
export interface SupervisedRun {
  /** settles when the run ends: resolves after stop(), rejects with the cause of a death */
  readonly ended: Promise<void>;
  /** asks the run to finish its current step and end */
  stop(): Promise<void>;
  /** ends the run at once, as a crash would (tests; only a thread can be ended so) */
  terminate?(): Promise<void>;
}

/** What the supervisor reports (see folder-metrics.ts). */
export interface SupervisionObserver {
  running(up: boolean): void;
  restarted(): void;
}

export interface FolderSupervisorOptions {
  /** starts one run */
  launch(): SupervisedRun;
  logger: Pick<Logger, 'info' | 'error'>;
  observer?: SupervisionObserver;
  /** the first restart's delay; default 1 s */
  baseMs?: number;
  /** the longest delay between restarts; default 30 s */
  maxMs?: number;
  /** a run that lived this long was healthy: the next delay is baseMs again; default 60 s */
  healthyMs?: number;
}

export interface FolderSupervisor {
  start(): void;
  /** stops the run under way (or the wait for the next one); starts no other */
  stop(): Promise<void>;
  /** whether a run is under way */
  running(): boolean;
  /** ends the run under way as a crash would (tests) */
  terminate(): Promise<void>;
}

export function createFolderSupervisor(opts: FolderSupervisorOptions): FolderSupervisor {
  const baseMs = opts.baseMs ?? 1000;
  const maxMs = opts.maxMs ?? 30_000;
  const healthyMs = opts.healthyMs ?? 60_000;
  const { logger, observer } = opts;
  let run: SupervisedRun | null = null;
  let stopping = true;
  let deaths = 0;
  let restartTimer: NodeJS.Timeout | null = null;

  function launch(): void {
    restartTimer = null;
    const started = Date.now();
    try {
      run = opts.launch();
    } catch (err) {
      died(err, started);
      return;
    }
    observer?.running(true);
    const current = run;
    current.ended.then(
      () => ended(current, null, started),
      (err: unknown) => ended(current, err ?? new Error('ended'), started),
    );
  }

  function ended(current: SupervisedRun, err: unknown, started: number): void {
    if (run !== current) return;
    run = null;
    observer?.running(false);
    if (stopping) return;
    died(err ?? new Error('the folder ended without being stopped'), started);
  }

  function died(err: unknown, started: number): void {
    deaths = Date.now() - started >= healthyMs ? 1 : deaths + 1;
    const delayMs = backoffMs(deaths, baseMs, maxMs);
    logger.error(
      { err: errorText(err), restartInMs: delayMs, deaths },
      'search index folder died; restarting it',
    );
    restartTimer = setTimeout(() => {
      if (stopping) return;
      logger.info({ deaths }, 'search index folder restarted');
      observer?.restarted();
      launch();
    }, delayMs);
  }

  return {
    start() {
      if (!stopping) return;
      stopping = false;
      deaths = 0;
      launch();
    },
    async stop() {
      stopping = true;
      if (restartTimer) clearTimeout(restartTimer);
      restartTimer = null;
      const current = run;
      if (!current) return;
      await current.stop();
      await current.ended.catch(() => {});
    },
    running: () => run !== null,
    async terminate() {
      await run?.terminate?.();
    },
  };
}
