/**
 * The watch loop: a round every `intervalMs` (from round start to round start; the WireGuard
 * sampling is part of the round), each report fed to the session, its events handed on; stops when
 * the `--until` condition is met, at the `--timeout`, or when stopped (q, Ctrl-C). A round that fails
 * (API server unreachable) is an error event and the next round tries again; `fatal` errors (a
 * missing Deno permission) end the loop by throwing.
 */
import type { EndEvent, EndReason, WatchEvent } from "../report/watch_model.ts";
import { HeapCompactor } from "./heap.ts";
import type { RoundRunner } from "./rounds.ts";
import type { WatchSession } from "./session.ts";

/** `--until`: the condition that ends the watch. */
export type UntilCondition = "healthy" | "failure";

/** What {@link runWatchLoop} needs. */
export interface WatchLoopOptions {
  runner: RoundRunner;
  session: WatchSession;
  /** Between round starts; 0: the next round starts as soon as the last ends. */
  intervalMs: number;
  /** Stop when a round is healthy (exit code 0) or has a failure. */
  until?: UntilCondition | null;
  /** Stop after this long (null: never). */
  timeoutMs?: number | null;
  /** Stop after this many rounds (null: never). For benchmarks and tests. */
  maxRounds?: number | null;
  /** Aborting it stops the loop (the user pressed q or Ctrl-C). */
  signal?: AbortSignal;
  /** Receives every event, in order (the end event last). */
  emit: (ev: WatchEvent) => void;
  /** Called when the dashboard should be redrawn: after each round, and every `tickMs` while waiting. */
  onUpdate?: (nextInMs: number | null) => void;
  /** Redraw period while waiting for the next round (default 1 s). */
  tickMs?: number;
  /** Runs before each round (tests change the served scenario here). */
  beforeRound?: (round: number) => Promise<void> | void;
  /** Errors that end the watch (rethrown) instead of being a failed round. */
  fatal?: (err: unknown) => boolean;
  /** The clock (tests). */
  now?: () => Date;
}

/** How the loop ended. */
export interface WatchOutcome {
  reason: EndReason;
  /** 0 when the --until condition was met; 1 on --timeout with --until; else the last round's code. */
  exitCode: number;
  rounds: number;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Runs rounds until the condition, the timeout, `maxRounds` or the signal; emits the end event. */
export async function runWatchLoop(opts: WatchLoopOptions): Promise<WatchOutcome> {
  const now = opts.now ?? (() => new Date());
  const tickMs = opts.tickMs ?? 1_000;
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  if (opts.signal?.aborted) stop.abort();
  const started = now().getTime();
  const deadline = opts.timeoutMs != null ? started + opts.timeoutMs : null;
  const timer = deadline !== null
    ? setTimeout(() => stop.abort("timeout"), Math.max(0, deadline - started))
    : null;
  let lastExit: number | null = null;
  let rounds = 0;
  const compactor = new HeapCompactor();
  const end = (reason: EndReason, exitCode: number): WatchOutcome => {
    const ev: EndEvent = { type: "end", time: now().toISOString(), reason, exitCode, rounds };
    opts.emit(ev);
    return { reason, exitCode, rounds };
  };
  const stopped = (): WatchOutcome =>
    stop.signal.reason === "timeout"
      ? end("timeout", opts.until ? 1 : lastExit ?? 1)
      : end("stopped", lastExit ?? 0);
  try {
    while (!stop.signal.aborted) {
      const roundStart = now().getTime();
      await opts.beforeRound?.(rounds + 1);
      opts.onUpdate?.(null);
      let report;
      try {
        report = await raceAbort(opts.runner.next(), stop.signal);
      } catch (err) {
        if (stop.signal.aborted) break;
        if (opts.fatal?.(err)) throw err;
        rounds++;
        opts.emit(opts.session.failed(err instanceof Error ? err.message : String(err), now()));
        report = null;
      }
      if (report) {
        rounds++;
        lastExit = report.exitCode;
        for (const ev of opts.session.observe(report, now())) opts.emit(ev);
        if (opts.until === "healthy" && report.exitCode === 0) return end("healthy", 0);
        if (opts.until === "failure" && report.exitCode === 2) return end("failure", 0);
      }
      compactor.afterRound();
      if (opts.maxRounds != null && rounds >= opts.maxRounds) return end("stopped", lastExit ?? 0);
      const nextAt = roundStart + opts.intervalMs;
      while (!stop.signal.aborted) {
        const left = nextAt - now().getTime();
        opts.onUpdate?.(Math.max(0, left));
        if (left <= 0) break;
        // Wake when the seconds left change, so "next check in N s" counts down evenly.
        await sleep(Math.min(left, left % tickMs || tickMs), stop.signal);
      }
    }
    return stopped();
  } finally {
    if (timer !== null) clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
  }
}

/** The promise's value, or a rejection as soon as `signal` aborts. */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new DOMException("stopped", "AbortError"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new DOMException("stopped", "AbortError"));
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
