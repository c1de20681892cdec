/**
 * The one round loop of the long-running faces, `flyingfish watch` (watch/loop.ts) and
 * `flyingfish serve` (serve/loop.ts): a round every `intervalMs`, measured start to start (so a
 * slow round does not push every later one); a round that fails (a tool error: unreachable API
 * server, rejected credentials) is handed to `onFailure` and the next round tries again; a `fatal`
 * error (a missing Deno permission, which will not heal by itself) ends the loop by rejecting. An
 * abort ends it at once: the round in flight is not waited for (the caller closes its runner, which
 * ends it; its outcome is dropped). What a round means is the face's business.
 */
import { abortable, rest } from "../time.ts";
import { HeapCompactor } from "./heap.ts";

/** What {@link runRounds} needs. */
export interface RoundsOptions<R> {
  /** Runs one round; rejects when no report could be made. */
  next: () => Promise<R>;
  /** Between round starts, in milliseconds; 0: the next round starts as soon as the last ends. */
  intervalMs: number;
  /** Aborting it ends the loop, without waiting for the round in flight. */
  signal: AbortSignal;
  /** Before each round, with its number (1 for the first). */
  beforeRound?: (round: number) => Promise<void> | void;
  /** A round's report and how long the round took; true ends the loop (before the next wait). */
  onReport: (report: R, elapsedMs: number) => boolean | void;
  /** A round that failed, and how long it took. */
  onFailure: (err: unknown, elapsedMs: number) => void;
  /** Errors that end the loop (rethrown) instead of being a failed round. */
  fatal?: (err: unknown) => boolean;
  /** Stop after this many rounds, failed ones included (null: never). */
  maxRounds?: number | null;
  /**
   * Called while waiting for the next round with the milliseconds left, when the wait begins and
   * again each time the whole seconds left (in `tickMs` units) change, so a countdown counts evenly.
   */
  onWait?: (leftMs: number) => void;
  /** The countdown's unit (default: no ticks, one wait for the whole pause). */
  tickMs?: number;
  /** The clock, in milliseconds (default `performance.now`; tests replace it). */
  now?: () => number;
}

/** How {@link runRounds} ended. */
export interface RoundsOutcome {
  /** `aborted`: the signal; `done`: `onReport` said so; `max-rounds`: `maxRounds` were run. */
  ended: "aborted" | "done" | "max-rounds";
  /** Rounds run to an end, failed ones included (not one cut short by the abort). */
  rounds: number;
}

/** Runs rounds until the signal aborts, `onReport` returns true, or `maxRounds`. */
export async function runRounds<R>(opts: RoundsOptions<R>): Promise<RoundsOutcome> {
  const { signal } = opts;
  const now = opts.now ?? (() => performance.now());
  const compactor = new HeapCompactor();
  let rounds = 0;
  while (!signal.aborted) {
    const started = now();
    await opts.beforeRound?.(rounds + 1);
    let outcome: { ok: true; report: R } | { ok: false; err: unknown };
    try {
      outcome = { ok: true, report: await abortable(opts.next(), signal) };
    } catch (err) {
      if (signal.aborted) break; // stopped under the round, or the runner was closed under it
      if (opts.fatal?.(err)) throw err;
      outcome = { ok: false, err };
    }
    rounds++;
    const elapsed = now() - started;
    if (!outcome.ok) opts.onFailure(outcome.err, elapsed);
    else if (opts.onReport(outcome.report, elapsed) === true) return { ended: "done", rounds };
    compactor.afterRound();
    if (opts.maxRounds != null && rounds >= opts.maxRounds) return { ended: "max-rounds", rounds };
    await waitFrom(started, opts, now);
  }
  return { ended: "aborted", rounds };
}

/** Waits until `intervalMs` after `started`, or the abort; ticks `onWait` on the way. */
async function waitFrom<R>(started: number, opts: RoundsOptions<R>, now: () => number): Promise<void> {
  const nextAt = started + opts.intervalMs;
  const tickMs = opts.tickMs ?? Infinity;
  while (!opts.signal.aborted) {
    const left = nextAt - now();
    opts.onWait?.(Math.max(0, left));
    if (left <= 0) return;
    await rest(Number.isFinite(tickMs) ? Math.min(left, left % tickMs || tickMs) : left, opts.signal);
  }
}
