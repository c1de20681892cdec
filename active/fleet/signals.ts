/**
 * Ctrl-C, SIGTERM and the run's `--timeout` during a probe run all take one path: the first one
 * aborts the run's signal, the run winds down (its own `finally` removes what it created, with a
 * budget of its own), then `cleanup` runs; a second SIGINT/SIGTERM leaves at once (exit 130) after
 * printing the command that removes what is left. The listeners are removed at the end, so the
 * default Ctrl-C behaviour comes back.
 *
 * One Ctrl-C can arrive twice: the terminal signals the whole foreground process group, so when the
 * CLI runs under a parent that forwards signals (`deno task`, a shell wrapper, a supervisor) it sees
 * the same interrupt from the terminal and from the parent, microseconds apart. A repeat within
 * {@link REPEAT_GRACE_MS} of the first is that same interrupt and is ignored: only a second press
 * leaves without cleaning up.
 */

/** What stopped a run before it ended. */
export type StopCause = "SIGINT" | "SIGTERM" | "timeout";

/** The abort reason of a stopped run (the body's signal carries it). */
export class RunStopped extends Error {
  /** Creates the reason for `by`. */
  constructor(readonly by: StopCause, detail?: string) {
    super(
      by === "timeout" ? `the run timed out${detail ? ` after ${detail}` : ""}` : `interrupted by ${by}`,
    );
    this.name = by === "timeout" ? "TimeoutError" : "AbortError";
  }
}

/** A second signal closer than this to the first is the same interrupt delivered twice. */
export const REPEAT_GRACE_MS = 750;

/** Where signal listeners are added and removed (Deno's, or a test's). */
export interface SignalHost {
  add(signal: "SIGINT" | "SIGTERM", handler: () => void): void;
  remove(signal: "SIGINT" | "SIGTERM", handler: () => void): void;
}

/** The signals a run listens to here: SIGTERM only where Deno supports it (not on Windows). */
export function stopSignals(os: string = Deno.build.os): ("SIGINT" | "SIGTERM")[] {
  return os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
}

const DENO_SIGNALS: SignalHost = {
  add: (s, h) => Deno.addSignalListener(s, h),
  remove: (s, h) => Deno.removeSignalListener(s, h),
};

/** Options of {@link withSignalCleanup}. */
export interface SignalCleanupOptions {
  /** The run's `--timeout`: aborts the body like a first signal. */
  timeoutMs?: number;
  /** How the timeout is named in the reason, e.g. "2m". */
  timeoutLabel?: string;
  /** Writes one line to stderr (default: `console.error`). */
  write?: (line: string) => void;
  /** Leaves the process (default: `Deno.exit`). */
  exit?: (code: number) => void;
  /** Signal listeners (default: Deno's). */
  host?: SignalHost;
  /** The clock (milliseconds; default `performance.now`), for the repeat grace. */
  now?: () => number;
}

/** What {@link withSignalCleanup} returns: the body's value, the cleanup's, and what stopped the run. */
export interface SignalCleanupResult<T, C> {
  value: T;
  cleanup: C;
  /** null: the body ended by itself. */
  stoppedBy: StopCause | null;
}

/** The line printed when a second signal leaves at once. */
export function secondSignalLine(runIdCommand: string): string {
  return `interrupted again: leaving now; remove what is left with: ${runIdCommand}`;
}

/**
 * Runs `body(signal)` under SIGINT/SIGTERM/timeout handling, then `cleanup()` (always, even when the
 * body throws; the body's error is then rethrown). A first signal or the timeout aborts `signal` with
 * a {@link RunStopped} reason and prints one line saying cleanup is under way; a second signal
 * prints {@link secondSignalLine} and exits 130 at once.
 */
export async function withSignalCleanup<T, C>(
  runIdCommand: string,
  body: (signal: AbortSignal) => Promise<T>,
  cleanup: () => Promise<C>,
  opts: SignalCleanupOptions = {},
): Promise<SignalCleanupResult<T, C>> {
  const write = opts.write ?? ((line: string) => console.error(line));
  const exit = opts.exit ?? ((code: number) => Deno.exit(code));
  const host = opts.host ?? DENO_SIGNALS;
  const now = opts.now ?? (() => performance.now());
  const ctl = new AbortController();
  let stoppedBy: StopCause | null = null;
  let firstSignalAt = -Infinity;

  const stop = (by: StopCause): void => {
    if (stoppedBy !== null) return;
    stoppedBy = by;
    ctl.abort(new RunStopped(by, opts.timeoutLabel));
  };
  const handlers = stopSignals().map((sig) => {
    const handler = (): void => {
      if (stoppedBy === "SIGINT" || stoppedBy === "SIGTERM") {
        // The same interrupt seen twice (the terminal and a forwarding parent): not a second press.
        if (now() - firstSignalAt < REPEAT_GRACE_MS) return;
        write(secondSignalLine(runIdCommand));
        exit(130);
        return;
      }
      write(`interrupted (${sig}): removing the probe objects; press Ctrl-C again to leave at once`);
      firstSignalAt = now();
      stop(sig);
    };
    host.add(sig, handler);
    return { sig, handler };
  });
  const timer = opts.timeoutMs !== undefined ? setTimeout(() => stop("timeout"), opts.timeoutMs) : undefined;
  try {
    let value: T;
    try {
      value = await body(ctl.signal);
    } catch (err) {
      clearTimeout(timer);
      await cleanup();
      throw err;
    }
    clearTimeout(timer);
    const c = await cleanup();
    return { value, cleanup: c, stoppedBy };
  } finally {
    clearTimeout(timer);
    for (const { sig, handler } of handlers) host.remove(sig, handler);
  }
}
