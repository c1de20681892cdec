/**
 * Waiting, the one way the product does it: a delay that an abort cuts short (its timer cleared, so
 * nothing keeps the process alive and no test leaks a timer), a race of any promise against an
 * abort or against a time limit, and the one backoff poll (a short first pause, growing to a cap,
 * until a deadline).
 *
 * This module has no dependencies: every floor may wait.
 */

/** Options of {@link delay}. */
export interface DelayOptions {
  /** Aborting it rejects the delay with the signal's reason, at once, and clears its timer. */
  signal?: AbortSignal;
}

/**
 * Resolves after `ms` milliseconds (0 or less: on the next turn of the event loop). Rejects with
 * `signal.reason` when the signal is aborted already or aborts during the wait; the timer is cleared
 * either way.
 */
export function delay(ms: number, opts: DelayOptions = {}): Promise<void> {
  const { signal } = opts;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Waits `ms` milliseconds, or less when `signal` aborts; never rejects. True when the whole time
 * passed, false when the abort cut it short (or had happened already). For loops that look at the
 * signal themselves after the pause.
 */
export function rest(ms: number, signal?: AbortSignal): Promise<boolean> {
  return delay(ms, { signal }).then(() => true, () => false);
}

/**
 * `promise`'s outcome, or a rejection with `signal.reason` as soon as the signal aborts (at once when
 * it is aborted already). The promise itself runs on; its later rejection is handled here, so an
 * abandoned promise never becomes an unhandled rejection.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** How a promise raced against a time limit ended: its value, or the time ran out first. */
export type Within<T> = { done: true; value: T } | { done: false };

/**
 * `promise`'s value as `{ done: true, value }`, or `{ done: false }` when `ms` pass first (the
 * promise runs on; its later outcome is handled here and dropped). Rejects as the promise does
 * within the time. The timer is cleared as soon as the promise settles.
 */
export function within<T>(promise: Promise<T>, ms: number): Promise<Within<T>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve({ done: false }), Math.max(0, ms));
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve({ done: true, value });
      },
      (err) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/** Options of {@link poll}. */
export interface PollOptions {
  /** The first pause between two attempts, in milliseconds. */
  intervalMs: number;
  /** The longest pause (default: `intervalMs`, a fixed interval). */
  maxIntervalMs?: number;
  /** Each pause is the last one times this, up to `maxIntervalMs` (default 2). */
  factor?: number;
  /** When to give up, on the `now` clock. */
  deadline: number;
  /**
   * Checked before every attempt: once aborted, the poll rejects with its reason (and so does the
   * pause in between, by default). Leave it out when the attempt itself handles an abort.
   */
  signal?: AbortSignal;
  /** The clock, in milliseconds (default `Date.now`; tests replace it). */
  now?: () => number;
  /** The pause between attempts (default {@link delay} with `signal`; tests replace it). */
  sleep?: (ms: number) => Promise<void>;
}

/** How a {@link poll} ended: an attempt's value, or the deadline passed first. */
export type PollResult<T> = { done: true; value: T } | { done: false };

/**
 * Calls `attempt` until it returns a value (not `undefined`), then resolves with it; resolves
 * `{ done: false }` when the deadline passes first. Always attempts once, and once more after a
 * pause that ends at the deadline. `attempt` is given the milliseconds left before the deadline (to
 * bound its own work). Between attempts it pauses `intervalMs`, then `factor` times longer each
 * time up to `maxIntervalMs`, never past the deadline.
 */
export async function poll<T>(
  attempt: (remainingMs: number) => Promise<T | undefined> | T | undefined,
  opts: PollOptions,
): Promise<PollResult<T>> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => delay(ms, { signal: opts.signal }));
  const maxMs = opts.maxIntervalMs ?? opts.intervalMs;
  const factor = opts.factor ?? 2;
  let pause = opts.intervalMs;
  for (;;) {
    opts.signal?.throwIfAborted();
    const value = await attempt(opts.deadline - now());
    if (value !== undefined) return { done: true, value };
    const left = opts.deadline - now();
    if (left <= 0) return { done: false };
    await sleep(Math.min(pause, left));
    pause = Math.min(maxMs, pause * factor);
  }
}
