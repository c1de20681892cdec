/**
 * `flyingfish check`: connect to one or two clusters, run the catalog, print the report.
 */
import { parseDurationFlag } from "../probes/duration.ts";
import { PermissionError, ToolError } from "../errors.ts";
import type { ClusterSource } from "../kube/source.ts";
import type { CheckResult, RunOptions } from "../checks/types.ts";
import type { Report } from "../report/model.ts";
import type { Format } from "../render/render.ts";
import { stdoutIsTty, useColor, writeOut } from "./output.ts";

/** The cluster-selection flags shared by `check` and `report`. */
export interface ClusterFlags {
  kubeconfig?: string;
  context?: string;
  remoteKubeconfig?: string;
  remoteContext?: string;
  /** A bundle written by `flyingfish collect`: replayed offline instead of connecting. */
  snapshot?: string;
}

/** Options of the check command, as parsed by commander. */
export interface CheckCommandOptions extends ClusterFlags {
  peer?: string[];
  output: Format | "text" | "json" | "yaml" | "markdown" | "junit";
  timeout: string;
  sampleInterval: string;
  latencyThreshold: string;
  networkProbes: boolean;
  udpPrecise?: boolean;
  color: boolean;
  verbose?: boolean;
  quiet?: boolean;
}

/** Parses a duration flag or fails with exit code 3. */
export function durationOption(name: string, value: string): number {
  try {
    return parseDurationFlag(value);
  } catch (e) {
    throw new ToolError(`invalid ${name} "${value}": ${e instanceof Error ? e.message : e}`);
  }
}

/** Run options from the flags of `check` or `report` (an absent --latency-threshold means 200ms). */
export function runOptionsFrom(
  opts: Pick<CheckCommandOptions, "networkProbes" | "udpPrecise" | "sampleInterval" | "timeout"> & {
    latencyThreshold?: string;
  },
): RunOptions {
  return {
    networkProbes: opts.networkProbes !== false,
    preciseUdp: opts.udpPrecise === true,
    sampleIntervalMs: durationOption("--sample-interval", opts.sampleInterval),
    latencyThresholdMs: durationOption("--latency-threshold", opts.latencyThreshold ?? "200ms"),
    checkTimeoutMs: durationOption("--timeout", opts.timeout),
  };
}

/** The clusters a run looks at: the local source and, in dual mode, the remote one (or why not). */
export interface OpenSources {
  local: ClusterSource;
  remote: { source: ClusterSource | null; error?: string } | null;
}

/** Connects to the clusters the flags name (live, or a snapshot bundle). */
export async function openSources(
  opts: ClusterFlags,
  requestTimeoutMs: number,
): Promise<OpenSources> {
  if (opts.snapshot !== undefined) {
    const conflicting = (["kubeconfig", "context", "remoteKubeconfig", "remoteContext"] as const).filter((
      k,
    ) => opts[k] !== undefined);
    if (conflicting.length > 0) {
      const flag = conflicting[0].replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
      throw new ToolError(`--snapshot replays a collected bundle: it cannot be combined with --${flag}`);
    }
    const { openSnapshot } = await import("../kube/snapshot.ts");
    return await openSnapshot(opts.snapshot);
  }
  const { createLiveSource } = await import("../kube/live/source.ts");
  const local = await createLiveSource({
    kubeconfig: opts.kubeconfig,
    context: opts.context,
    requestTimeoutMs,
  });
  await local.probeReachable();
  if (!opts.remoteKubeconfig && !opts.remoteContext) return { local, remote: null };
  try {
    const remote = await createLiveSource({
      kubeconfig: opts.remoteKubeconfig ?? opts.kubeconfig,
      context: opts.remoteContext,
      requestTimeoutMs,
    });
    await remote.probeReachable();
    return { local, remote: { source: remote } };
  } catch (err) {
    if (err instanceof PermissionError || !(err instanceof ToolError)) throw err;
    const error = `remote cluster unavailable: ${err.message}`;
    console.error(`flyingfish: ${error} — checking ${local.endpoint.context} alone`);
    return { local, remote: { source: null, error } };
  }
}

/** Runs the check command; returns the exit code. */
export async function runCheckCommand(opts: CheckCommandOptions): Promise<number> {
  const options = runOptionsFrom(opts);
  const { local, remote } = await openSources(opts, options.checkTimeoutMs);
  try {
    const report = await diagnoseAndPrint(local, remote, options, opts);
    return report.exitCode;
  } finally {
    await local.close();
    await remote?.source?.close();
  }
}

/** Progress hooks of a diagnosis run. */
export interface DiagnoseHooks {
  /** A check instance started. */
  onStart?: (i: { id: string; cluster: string; peer: string | null }) => void;
  /** A check result arrived. */
  onResult?: (r: CheckResult) => void;
}

/** Runs the diagnosis over open sources with the live probe hub; prints nothing. */
export async function diagnose(
  local: ClusterSource,
  remote: OpenSources["remote"],
  options: RunOptions,
  peers: string[] | undefined,
  hooks: DiagnoseHooks = {},
): Promise<Report> {
  const [{ runDiagnosis }, { createProbeHub }] = await Promise.all([
    import("../diagnose/run.ts"),
    import("../probes/live_hub.ts"),
  ]);
  return await runDiagnosis({
    local,
    remote,
    peers,
    options,
    probes: (sources) =>
      createProbeHub({
        sources,
        networkProbes: options.networkProbes,
        preciseUdp: options.preciseUdp,
        sampleIntervalMs: options.sampleIntervalMs,
      }),
    onStart: hooks.onStart,
    onResult: hooks.onResult,
  });
}

/** Runs the diagnosis over open sources and prints it in the requested format. */
export async function diagnoseAndPrint(
  local: ClusterSource,
  remote: OpenSources["remote"],
  options: RunOptions,
  opts: { output: string; color?: boolean; verbose?: boolean; quiet?: boolean; peer?: string[] },
): Promise<Report> {
  const [{ render }, { LiveChecklist }] = await Promise.all([
    import("../render/render.ts"),
    import("../render/text.ts"),
  ]);
  const color = useColor(opts.color);
  const text = opts.output === "text";
  const live = text && !opts.quiet && stdoutIsTty()
    ? new LiveChecklist(writeOut, { color, verbose: opts.verbose === true, tty: true })
    : null;
  const report = await diagnose(local, remote, options, opts.peer, {
    onStart: live ? (i) => live.start(i.id, i.cluster, i.peer) : undefined,
    onResult: live ? (r) => live.result(r) : undefined,
  });
  if (live) live.finish(report);
  else {
    writeOut(render(report, opts.output as Format, {
      color,
      verbose: opts.verbose === true,
      quiet: opts.quiet === true,
    }));
  }
  return report;
}
