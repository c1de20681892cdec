/**
 * The round loop of `flyingfish serve`: one round every interval (measured start to start, so a
 * slow round does not push every later one), each recorded in the serve state; a round that fails
 * (a tool error: unreachable API server, rejected credentials) is recorded and the loop goes on;
 * a missing Deno permission ends it (it will not heal by itself).
 */
import { PermissionError } from "../errors.ts";
import type { Report } from "../report/model.ts";
import { HeapCompactor } from "../watch/heap.ts";
import type { ServeState } from "./state.ts";

/** What runs the rounds (watch/rounds.ts `RoundRunner` has this shape). */
export interface Rounds {
  /** Runs one round and returns its report; throws a tool error when no report could be made. */
  next(): Promise<Report>;
}

/** Options of {@link runRoundLoop}. */
export interface RoundLoopOptions {
  rounds: Rounds;
  state: ServeState;
  /** Time from the start of a round to the start of the next, in milliseconds. */
  intervalMs: number;
  /** Ends the loop (after the round in flight). */
  signal: AbortSignal;
  /** A line for the log (one per failed round, and when a failure clears). */
  log?: (line: string) => void;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer: ReturnType<typeof setTimeout> = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * `p`, or null as soon as `signal` aborts: a stop does not wait for the round in flight (the
 * caller closes the runner, which ends it; its outcome is dropped).
 */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T | null> {
  if (signal.aborted) {
    p.catch(() => {});
    return Promise.resolve(null);
  }
  return new Promise<T | null>((resolve, reject) => {
    const onAbort = (): void => resolve(null);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function messageOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split("\n")[0];
}

/**
 * Runs rounds until `signal` aborts; resolves after the last round has been recorded. Rejects with
 * the {@link PermissionError} a round met.
 */
export async function runRoundLoop(opts: RoundLoopOptions): Promise<void> {
  const { rounds, state, signal } = opts;
  let failing = false;
  const compactor = new HeapCompactor();
  while (!signal.aborted) {
    const started = performance.now();
    try {
      const report = await untilAborted(rounds.next(), signal);
      if (report === null) break;
      state.recordRound(report, performance.now() - started);
      if (failing) opts.log?.("round succeeded again");
      failing = false;
    } catch (err) {
      if (signal.aborted) break; // the runner was closed under the round
      // A missing Deno permission will not heal by itself: stop, and let the CLI say which flag.
      if (err instanceof PermissionError) throw err;
      const message = messageOf(err);
      state.recordFailure(message, performance.now() - started);
      opts.log?.(`round failed: ${message}`);
      failing = true;
    }
    compactor.afterRound();
    await sleep(Math.max(0, opts.intervalMs - (performance.now() - started)), signal);
  }
}
