/**
 * `flyingfish watch`: re-checks one cluster (or both ends of a peering) every `--interval`. On a
 * terminal, with `-o text`, a dashboard redrawn in place (render/watch_dashboard.ts); piped, or with
 * `-o jsonl`, one JSON event per line (report/watch_model.ts): a snapshot, then transitions,
 * flapping warnings, heartbeats, errors and the end. `--until healthy|failure` (with `--wait`)
 * waits for the peering to heal or break: exit 0 when it does, 1 past `--wait`, 3 on a tool error.
 * `--timeout` means what it means on every command: the bound of the whole run, past it exit 3.
 *
 * The rounds run over watched sources (watch/rounds.ts): after the first round, object changes come
 * from Kubernetes watches and a round costs only /version and the `wg show` execs.
 */
import { PermissionError, ToolError } from "../errors.ts";
import type { ClusterSource } from "../kube/source.ts";
import type { EndReason, WatchEvent } from "../report/watch_model.ts";
import { durationOption, runOptionsFrom, timeoutsFrom } from "./check.ts";
import { stdoutIsTty, useColor, writeErr, writeOut } from "./output.ts";
import { DEFAULT_REQUEST_TIMEOUT } from "./defaults.ts";
import { openRemote } from "../diagnose/open.ts";
import type { FleetFlags } from "./fleet_cmd.ts";

/** Options of the watch command, as parsed by commander. */
export interface WatchCommandOptions {
  kubeconfig?: string;
  context?: string;
  remoteKubeconfig?: string;
  remoteContext?: string;
  peer?: string[];
  interval: string;
  output: "text" | "jsonl";
  until?: "healthy" | "failure";
  /** With `--until`: how long to wait (exit 1 past it); alone: how long to watch. */
  wait?: string;
  /** The bound of the whole run, as on every command: past it, exit 3. */
  timeout?: string;
  flapThreshold: string;
  flapWindow: string;
  requestTimeout?: string;
  sampleInterval: string;
  latencyThreshold: string;
  networkProbes: boolean;
  udpPrecise?: boolean;
  color: boolean;
}

/** `--wait` when `--until` is given without one. */
export const DEFAULT_UNTIL_TIMEOUT = "10m";

/** The watch's own settings, from the flags (exit 3 on a bad value). */
export function watchSettingsFrom(opts: WatchCommandOptions): {
  intervalMs: number;
  timeoutMs: number | null;
  flapThreshold: number;
  flapWindowMs: number;
} {
  const intervalMs = durationOption("--interval", opts.interval);
  const waitFlag = opts.wait ?? (opts.until ? DEFAULT_UNTIL_TIMEOUT : "0");
  const timeout = durationOption("--wait", waitFlag);
  durationOption("--timeout", opts.timeout ?? "0");
  const flapThreshold = Number(opts.flapThreshold);
  if (!Number.isInteger(flapThreshold) || flapThreshold < 1) {
    throw new ToolError(
      `invalid --flap-threshold "${opts.flapThreshold}": a whole number of changes, at least 1`,
    );
  }
  const sampleMs = durationOption("--sample-interval", opts.sampleInterval);
  if (intervalMs > 0 && sampleMs >= intervalMs) {
    throw new ToolError(
      `--sample-interval ${opts.sampleInterval} must be shorter than --interval ${opts.interval}: the WireGuard sampling is part of each round`,
    );
  }
  return {
    intervalMs,
    timeoutMs: timeout === 0 ? null : timeout,
    flapThreshold,
    flapWindowMs: durationOption("--flap-window", opts.flapWindow),
  };
}

/** The clusters to watch: live sources that can watch (kube/live/watch.ts). */
async function openWatchSources(
  opts: WatchCommandOptions,
  requestTimeoutMs: number,
): Promise<{ local: ClusterSource; remote: { source: ClusterSource | null; error?: string } | null }> {
  const { openWatchableSource } = await import("../kube/live/watch.ts");
  const local = await openWatchableSource({
    kubeconfig: opts.kubeconfig,
    context: opts.context,
    requestTimeoutMs,
  });
  const remote = await openRemote(
    opts,
    (o) => openWatchableSource({ ...o, requestTimeoutMs }),
    (error) => writeErr(`flyingfish: ${error} — watching ${local.endpoint.context} alone\n`),
  );
  return { local, remote };
}

/** Errors that end the watch instead of failing one round: a missing Deno permission, a non-tool error. */
function isFatal(err: unknown): boolean {
  return err instanceof PermissionError || !(err instanceof ToolError);
}

/** Runs the watch command within `--timeout` (exit 3 past it, like every command); returns the exit code. */
export async function runWatchCommand(opts: WatchCommandOptions & FleetFlags): Promise<number> {
  const settings = watchSettingsFrom(opts);
  const bound = durationOption("--timeout", opts.timeout ?? "0");
  const [{ withDeadline, NO_TIMEOUT_MS }, fleet] = await Promise.all([
    import("./deadline.ts"),
    import("./fleet_cmd.ts"),
  ]);
  const isFleet = fleet.isFleet(opts);
  fleet.checkFleetFlags(opts as WatchCommandOptions & FleetFlags & Record<string, unknown>, isFleet);
  return await withDeadline(bound === 0 ? NO_TIMEOUT_MS : bound, opts.timeout ?? "0", (onExpiry) => {
    const stop = new AbortController();
    // Past --timeout: the rounds stop, the sources close (the deadline's own message says why).
    onExpiry(() => stop.abort());
    if (isFleet) {
      const { requestTimeoutMs } = timeoutsFrom({
        timeout: "0",
        requestTimeout: opts.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT,
      });
      return fleet.runFleetWatch(opts, {
        options: runOptionsFrom({ ...opts, timeout: "0" }),
        requestTimeoutMs,
        intervalMs: settings.intervalMs,
        waitMs: settings.timeoutMs,
        ...(opts.until ? { until: opts.until } : {}),
        output: opts.output === "jsonl" || !stdoutIsTty() ? "jsonl" : "text",
        signal: stop.signal,
      });
    }
    return watchWithin(opts, settings, stop);
  });
}

async function watchWithin(
  opts: WatchCommandOptions,
  settings: ReturnType<typeof watchSettingsFrom>,
  stop: AbortController,
): Promise<number> {
  const options = runOptionsFrom({ ...opts, timeout: "0" });
  const { requestTimeoutMs } = timeoutsFrom({
    timeout: "0",
    requestTimeout: opts.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT,
  });
  const [{ startRounds }, { WatchSession }, { runWatchLoop }, { cliInvocation }] = await Promise.all([
    import("../watch/rounds.ts"),
    import("../watch/session.ts"),
    import("../watch/loop.ts"),
    import("../report/invocation.ts"),
  ]);
  const { local, remote } = await openWatchSources(opts, requestTimeoutMs);
  const dashboard = opts.output === "text" && stdoutIsTty();
  const notices = new Set<string>();
  const runner = startRounds({
    local,
    remote,
    peers: opts.peer,
    options,
    invocation: cliInvocation(opts),
    // Said once, on stderr (the dashboard's dual checks say it every round).
    onNotice: (line) => {
      if (dashboard || notices.has(line)) return;
      notices.add(line);
      writeErr(`flyingfish: ${line}\n`);
    },
  });
  const session = new WatchSession({
    intervalMs: settings.intervalMs,
    flapThreshold: settings.flapThreshold,
    flapWindowMs: settings.flapWindowMs,
    until: opts.until ?? null,
  });
  const quit = (): void => stop.abort();
  // SIGTERM cannot be listened to on Windows: stop on what the platform offers.
  const signals = (["SIGINT", "SIGTERM"] as const).filter((sig) => {
    try {
      Deno.addSignalListener(sig, quit);
      return true;
    } catch {
      return false;
    }
  });
  try {
    if (dashboard) return await watchOnTerminal(opts, settings, runner, session, stop, runWatchLoop);
    const outcome = await runWatchLoop({
      runner,
      session,
      intervalMs: settings.intervalMs,
      until: opts.until ?? null,
      timeoutMs: settings.timeoutMs,
      signal: stop.signal,
      fatal: isFatal,
      emit: (ev) => writeOut(JSON.stringify(ev) + "\n"),
    });
    if (outcome.reason === "timeout" && opts.until) writeErr(`flyingfish: ${timeoutLine(opts)}\n`);
    return outcome.exitCode;
  } finally {
    for (const s of signals) Deno.removeSignalListener(s, quit);
    await runner.close();
  }
}

function timeoutLine(opts: WatchCommandOptions): string {
  const wait = opts.wait ?? DEFAULT_UNTIL_TIMEOUT;
  return opts.until === "healthy"
    ? `the peering did not become healthy within --wait ${wait}`
    : `no failure appeared within --wait ${wait}`;
}

/** The dashboard: drawn after each round and every second while waiting; q/Ctrl-C stop. */
async function watchOnTerminal(
  opts: WatchCommandOptions,
  settings: ReturnType<typeof watchSettingsFrom>,
  runner: import("../watch/rounds.ts").RoundRunner,
  session: import("../watch/session.ts").WatchSession,
  stop: AbortController,
  runWatchLoop: typeof import("../watch/loop.ts").runWatchLoop,
): Promise<number> {
  const [{ renderDashboard }, { TerminalDashboard }] = await Promise.all([
    import("../render/watch_dashboard.ts"),
    import("./watch_tty.ts"),
  ]);
  const color = useColor(opts.color);
  const term = new TerminalDashboard(() => stop.abort());
  let nextIn: number | null = null;
  let ended: EndReason | null = null;
  const draw = (): void => {
    const { width, height } = term.size();
    const model = session.model(new Date(), nextIn, ended);
    term.draw(renderDashboard(model, { color, width, height: height || undefined }));
  };
  let message: string | undefined;
  try {
    draw();
    const outcome = await runWatchLoop({
      runner,
      session,
      intervalMs: settings.intervalMs,
      until: opts.until ?? null,
      timeoutMs: settings.timeoutMs,
      signal: stop.signal,
      fatal: isFatal,
      emit: (ev: WatchEvent) => {
        if (ev.type === "end") ended = ev.reason;
      },
      onUpdate: (ms) => {
        nextIn = ms;
        draw();
      },
    });
    draw();
    if (outcome.reason === "timeout" && opts.until) message = `flyingfish: ${timeoutLine(opts)}`;
    else if (outcome.reason === "healthy") {
      message = `flyingfish: the peering is healthy (round ${outcome.rounds})`;
    } else if (outcome.reason === "failure") message = `flyingfish: a check failed (round ${outcome.rounds})`;
    return outcome.exitCode;
  } finally {
    await term.close(message);
  }
}
