/**
 * The overall `--timeout` of a command that talks to clusters. Each API request and exec has its
 * own bound (`--request-timeout`); this one bounds the whole run, so a command never hangs longer
 * than the user allowed. When it expires, the connections registered so far are closed (their
 * pending requests fail) and the command ends with a tool error (exit 3): no partial report, which
 * could pass for a complete one.
 */
import { parseDurationFlag } from "../probes/duration.ts";
import { ToolError } from "../errors.ts";
import { within } from "../time.ts";

/** `0` on a timeout flag means no limit: the longest delay a timer accepts (~24.8 days). */
export const NO_TIMEOUT_MS = 2 ** 31 - 1;

/** Registers a clean-up (closing a source) to run if the deadline expires. */
export type OnExpiry = (cleanup: () => Promise<void> | void) => void;

/**
 * Runs `work` within `ms` milliseconds (`flag` is the value the user gave, for the message);
 * `NO_TIMEOUT_MS` runs it without a deadline. With `early`, the run already expires at `early.ms`
 * unless `early.committed()` says by then that the extra time is needed (an active run whose probe
 * session has started, and may have to clean up): before that point, nothing would need it.
 */
export async function withDeadline<T>(
  ms: number,
  flag: string,
  work: (onExpiry: OnExpiry) => Promise<T>,
  early?: { ms: number; committed: () => boolean },
): Promise<T> {
  const cleanups: (() => Promise<void> | void)[] = [];
  let expired = false;
  const clean = (c: () => Promise<void> | void): Promise<void> => Promise.resolve().then(c).catch(() => {});
  const running = work((c) => {
    // Registered after expiry (a connection that opened too late): close it at once.
    if (expired) void clean(c);
    else cleanups.push(c);
  });
  if (ms >= NO_TIMEOUT_MS) return await running;
  let left = ms;
  if (early && early.ms < ms) {
    const first = await within(running, early.ms);
    if (first.done) return first.value;
    left = early.committed() ? ms - early.ms : 0;
  }
  const finished = left > 0 ? await within(running, left) : { done: false as const };
  if (finished.done) return finished.value;
  expired = true;
  // The work is abandoned: close what it opened so its requests stop (its end is dropped).
  for (const c of cleanups.splice(0)) await clean(c);
  throw new ToolError(
    `the run did not finish within --timeout ${flag} and was stopped: raise --timeout (0 = no limit); ` +
      `each API request and exec is bounded by --request-timeout`,
  );
}

/** Parses a duration flag or fails with exit code 3; with `zeroMeansNone`, `0` is {@link NO_TIMEOUT_MS}. */
export function durationOption(name: string, value: string, zeroMeansNone = false): number {
  let ms: number;
  try {
    ms = parseDurationFlag(value);
  } catch (e) {
    throw new ToolError(`invalid ${name} "${value}": ${e instanceof Error ? e.message : e}`);
  }
  if (!zeroMeansNone) return ms;
  if (ms === 0) return NO_TIMEOUT_MS;
  if (ms > NO_TIMEOUT_MS) {
    throw new ToolError(`invalid ${name} "${value}": longer than 24 days (0 = no limit)`);
  }
  return ms;
}
