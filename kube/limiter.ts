/**
 * A FIFO bound on concurrent work: at most `limit` holders at once; the others wait in arrival
 * order, urgent ones first (the reads a run's critical path waits on). Used by kube/http.ts so that one cluster never has more than N requests in flight (and so
 * never more than N connections open).
 */

/** Gives back a slot; calling it again does nothing. */
export type Release = () => void;

/** Counters of a {@link Limiter}. */
export interface LimiterStats {
  /** Slots held now. */
  active: number;
  /** Waiters now. */
  queued: number;
  /** Most slots ever held at once. */
  peakActive: number;
  /** Most waiters ever at once. */
  peakQueued: number;
}

/** A FIFO semaphore. */
export interface Limiter {
  /**
   * Waits for a slot (first come, first served; an `urgent` waiter goes before every waiter that is
   * not). Rejects with `signal.reason` if the signal aborts first; the waiter then leaves the queue.
   */
  acquire(signal?: AbortSignal, urgent?: boolean): Promise<Release>;
  /** Current and peak counters. */
  stats(): LimiterStats;
}

/** Creates a limiter with `limit` slots (at least 1). */
export function createLimiter(limit: number): Limiter {
  const max = Math.max(1, Math.floor(limit));
  const waiters: { grant: () => void; urgent: boolean }[] = [];
  let active = 0;
  let peakActive = 0;
  let peakQueued = 0;

  function take(): Release {
    active++;
    peakActive = Math.max(peakActive, active);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      active--;
      const next = waiters.shift();
      if (next) next.grant();
    };
  }

  return {
    acquire(signal?: AbortSignal, urgent = false): Promise<Release> {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (active < max && waiters.length === 0) return Promise.resolve(take());
      return new Promise<Release>((resolve, reject) => {
        const waiter = {
          urgent,
          grant: () => {
            signal?.removeEventListener("abort", onAbort);
            resolve(take());
          },
        };
        const onAbort = (): void => {
          const i = waiters.indexOf(waiter);
          if (i >= 0) waiters.splice(i, 1);
          reject(signal!.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        // Urgent waiters queue among themselves, ahead of the others.
        const at = urgent ? waiters.findIndex((w) => !w.urgent) : -1;
        if (at >= 0) waiters.splice(at, 0, waiter);
        else waiters.push(waiter);
        peakQueued = Math.max(peakQueued, waiters.length);
      });
    },
    stats: () => ({ active, queued: waiters.length, peakActive, peakQueued }),
  };
}
