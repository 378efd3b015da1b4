/** A sleep that ends early when woken (a NOTIFY arrived, or the worker is stopping). */
export interface Wakeup {
  wait(ms: number): Promise<void>;
  wake(): void;
}

export function createWakeup(): Wakeup {
  // a wake-up with nobody waiting is kept for the next wait (a NOTIFY during a batch)
  let pending = false;
  const waiters = new Set<() => void>();
  return {
    wait(ms) {
      if (pending) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        waiters.add(done);
      });
    },
    wake() {
      if (waiters.size === 0) pending = true;
      for (const done of [...waiters]) done();
    },
  };
}
