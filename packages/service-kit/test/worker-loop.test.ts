import { backoffMs } from '../src/worker/backoff';
import { createWorkerLoop, drainWork, type WorkerLoopOptions } from '../src/worker/worker-loop';
import { captureLogs } from './capture-logs';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A loop of `opts` whose logs are captured (`lines`), polling every 60 s and logging a failed
 * round as 'failed' unless `opts` says otherwise.
 */
function testLoop(opts: Pick<WorkerLoopOptions, 'step'> & Partial<WorkerLoopOptions>) {
  const { logger, lines } = captureLogs('test', 'debug');
  const loop = createWorkerLoop({
    pollIntervalMs: 60_000,
    logger,
    failureMessage: 'failed',
    ...opts,
  });
  return { loop, lines };
}

describe('worker loop', () => {
  test('While a round says more is due, the next round starts at once; then the loop sleeps until woken', async () => {
    let rounds = 0;
    const { loop } = testLoop({ step: async () => ++rounds < 3 });
    loop.start();
    await sleep(50);
    expect(rounds).toBe(3);
    loop.wake();
    await sleep(20);
    expect(rounds).toBe(4);
    await loop.stop();
  });

  test('A round that throws is logged at error level and the loop goes on', async () => {
    let rounds = 0;
    const { loop, lines } = testLoop({
      step: async () => {
        rounds++;
        if (rounds === 1) throw new Error('boom');
        return rounds < 2;
      },
      failureMessage: 'the round failed',
    });
    loop.start();
    await sleep(20);
    loop.wake();
    await sleep(20);
    await loop.stop();
    expect(rounds).toBeGreaterThanOrEqual(2);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 50, err: 'boom', msg: 'the round failed' }),
    );
  });

  test('stop waits for the round in flight, and no round starts after it', async () => {
    let finished = 0;
    let started = 0;
    const { loop } = testLoop({
      step: async () => {
        started++;
        await sleep(50);
        finished++;
        return true;
      },
      pollIntervalMs: 10,
    });
    loop.start();
    await sleep(10);
    await loop.stop();
    expect(finished).toBe(started);
    await sleep(60);
    expect(started).toBe(finished);
  });

  test('Several loops run rounds side by side', async () => {
    let inFlight = 0;
    let most = 0;
    const { loop } = testLoop({
      step: async () => {
        most = Math.max(most, ++inFlight);
        await sleep(20);
        inFlight--;
        return false;
      },
      loops: 3,
    });
    loop.start();
    await sleep(10);
    await loop.stop();
    expect(most).toBe(3);
  });

  test('Housekeeping runs at most once per interval, and its failure is logged at warn', async () => {
    let upkeeps = 0;
    let rounds = 0;
    const { loop, lines } = testLoop({
      step: async () => ++rounds < 5,
      housekeeping: {
        everyMs: 60_000,
        run: async () => {
          upkeeps++;
          throw new Error('disk full');
        },
        failureMessage: 'cleanup failed',
      },
    });
    loop.start();
    await sleep(30);
    await loop.stop();
    expect(rounds).toBe(5);
    expect(upkeeps).toBe(1);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 40, err: 'disk full', msg: 'cleanup failed' }),
    );
  });
  test("A step that says 'finished' ends its loop: run() resolves, and a later run() runs it again", async () => {
    let rounds = 0;
    const { loop } = testLoop({ step: async () => (++rounds % 3 === 0 ? 'finished' : true) });
    await loop.run();
    expect(rounds).toBe(3);
    await loop.run();
    expect(rounds).toBe(6);
  });

  test('run() while the loop runs answers that run, which resolves once stop() lets the round in flight finish', async () => {
    let finished = 0;
    const { loop } = testLoop({
      step: async () => {
        await sleep(20);
        finished++;
        return false;
      },
    });
    const run = loop.run();
    expect(loop.run()).toBe(run);
    await sleep(5);
    await loop.stop();
    await expect(run).resolves.toBeUndefined();
    expect(finished).toBe(1);
  });

  test("With onFailure 'end', a round that throws ends the loop unlogged, run() rejects with it, and the next run() starts afresh", async () => {
    let rounds = 0;
    const { loop, lines } = testLoop({
      step: async () => {
        if (++rounds === 2) throw new Error('database gone');
        return rounds < 4;
      },
      onFailure: 'end',
    });
    await expect(loop.run()).rejects.toThrow('database gone');
    expect(rounds).toBe(2);
    expect(lines).toEqual([]);
    await loop.stop(); // nothing runs: nothing to wait for, nothing thrown
    const again = loop.run();
    await sleep(20);
    expect(rounds).toBe(4);
    await loop.stop();
    await expect(again).resolves.toBeUndefined();
  });
});

describe('drainWork', () => {
  test('Rounds run until the work is empty', async () => {
    let left = 5;
    await drainWork({
      step: async () => (left > 0 ? (left--, true) : false),
      isEmpty: async () => left === 0,
      timeoutMs: 1000,
      what: 'jobs',
    });
    expect(left).toBe(0);
  });

  test('Work that never empties fails with "<what> not drained in time"', async () => {
    await expect(
      drainWork({
        step: async () => false,
        isEmpty: async () => false,
        timeoutMs: 50,
        what: 'thumbnail jobs',
      }),
    ).rejects.toThrow('thumbnail jobs not drained in time');
  });
});

describe('backoffMs', () => {
  test.each([
    [1, 500],
    [2, 1000],
    [3, 2000],
    [10, 60_000],
  ])('Retry %i waits base · 2^(n-1) capped at the maximum (%i ms without jitter)', (n, ms) => {
    expect(backoffMs(n, 500, 60_000, () => 0.5)).toBe(ms);
    expect(backoffMs(n, 500, 60_000, () => 0)).toBe(Math.round(ms * 0.8));
    expect(backoffMs(n, 500, 60_000, () => 1)).toBe(Math.round(ms * 1.2));
  });
});
