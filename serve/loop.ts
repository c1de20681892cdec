/**
 * The round loop of `flyingfish serve`: one round every interval (measured start to start, so a
 * slow round does not push every later one), each recorded in the serve state; a round that fails
 * (a tool error: unreachable API server, rejected credentials) is recorded and the loop goes on;
 * a missing Deno permission ends it (it will not heal by itself).
 */
import { PermissionError } from "../errors.ts";
import type { Report } from "../report/model.ts";
import { runRounds } from "../watch/round_loop.ts";
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

function messageOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split("\n")[0];
}

/**
 * Runs rounds until `signal` aborts; resolves after the last round has been recorded. Rejects with
 * the {@link PermissionError} a round met.
 */
export async function runRoundLoop(opts: RoundLoopOptions): Promise<void> {
  const { state } = opts;
  let failing = false;
  await runRounds({
    next: () => opts.rounds.next(),
    intervalMs: opts.intervalMs,
    signal: opts.signal,
    onReport: (report, elapsedMs) => {
      state.recordRound(report, elapsedMs);
      if (failing) opts.log?.("round succeeded again");
      failing = false;
    },
    onFailure: (err, elapsedMs) => {
      const message = messageOf(err);
      state.recordFailure(message, elapsedMs);
      opts.log?.(`round failed: ${message}`);
      failing = true;
    },
    // A missing Deno permission will not heal by itself: stop, and let the CLI say which flag.
    fatal: (err) => err instanceof PermissionError,
  });
}
