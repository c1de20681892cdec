/**
 * The watch loop: a round every `intervalMs` (from round start to round start; the WireGuard
 * sampling is part of the round), each report fed to the session, its events handed on; stops when
 * the `--until` condition is met, at the `--timeout`, or when stopped (q, Ctrl-C). A round that fails
 * (API server unreachable) is an error event and the next round tries again; `fatal` errors (a
 * missing Deno permission) end the loop by throwing.
 */
import type { EndEvent, EndReason, WatchEvent } from "../report/watch_model.ts";
import { runRounds } from "./round_loop.ts";
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

/** Runs rounds until the condition, the timeout, `maxRounds` or the signal; emits the end event. */
export async function runWatchLoop(opts: WatchLoopOptions): Promise<WatchOutcome> {
  const now = opts.now ?? (() => new Date());
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
  let met: EndReason | null = null;
  const end = (reason: EndReason, exitCode: number, rounds: number): WatchOutcome => {
    const ev: EndEvent = { type: "end", time: now().toISOString(), reason, exitCode, rounds };
    opts.emit(ev);
    return { reason, exitCode, rounds };
  };
  try {
    const { ended, rounds } = await runRounds({
      next: () => opts.runner.next(),
      intervalMs: opts.intervalMs,
      signal: stop.signal,
      beforeRound: async (round) => {
        await opts.beforeRound?.(round);
        opts.onUpdate?.(null);
      },
      onReport: (report) => {
        lastExit = report.exitCode;
        for (const ev of opts.session.observe(report, now())) opts.emit(ev);
        if (opts.until === "healthy" && report.exitCode === 0) met = "healthy";
        if (opts.until === "failure" && report.exitCode === 2) met = "failure";
        return met !== null;
      },
      onFailure: (err) =>
        opts.emit(opts.session.failed(err instanceof Error ? err.message : String(err), now())),
      fatal: opts.fatal,
      maxRounds: opts.maxRounds,
      onWait: opts.onUpdate,
      tickMs: opts.tickMs ?? 1_000,
      now: () => now().getTime(),
    });
    if (ended === "done" && met !== null) return end(met, 0, rounds);
    if (ended === "max-rounds") return end("stopped", lastExit ?? 0, rounds);
    return stop.signal.reason === "timeout"
      ? end("timeout", opts.until ? 1 : lastExit ?? 1, rounds)
      : end("stopped", lastExit ?? 0, rounds);
  } finally {
    if (timer !== null) clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
  }
}
