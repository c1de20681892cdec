/**
 * `flyingfish check`: connect to one or two clusters, run the catalog, print the report.
 */
import { PermissionError, ToolError } from "../errors.ts";
import type { ClusterSource } from "../kube/source.ts";
import type { CheckDef, CheckResult, RunOptions } from "../checks/types.ts";
import type { Report } from "../report/model.ts";
import type { Invocation } from "../report/invocation.ts";
import type { DiagnosisRequest } from "../diagnose/run.ts";
import type { Format } from "../render/render.ts";
import {
  setProgress,
  stdoutIsTty,
  stopProgress,
  terminalColumns,
  useColor,
  writeErr,
  writeOut,
  writePieces,
} from "./output.ts";
import { durationOption, withDeadline } from "./deadline.ts";

export { durationOption } from "./deadline.ts";
import { didYouMean } from "./suggest.ts";
import { DEFAULT_REQUEST_TIMEOUT, DEFAULT_RUN_TIMEOUT, RUN_DEFAULTS } from "./defaults.ts";
import { type ClusterFlags, type OpenSources, openSources as openClusterSources } from "../diagnose/open.ts";

import type { FleetFlags } from "./fleet_cmd.ts";

export type { ClusterFlags, OpenSources } from "../diagnose/open.ts";

/** Options of the check command, as parsed by commander. */
export interface CheckCommandOptions extends ClusterFlags {
  peer?: string[];
  output: Format | "text" | "json" | "yaml" | "markdown" | "junit";
  /** `--only`: check IDs or layer names (comma-separated, repeatable); their prerequisites run too. */
  only?: string[];
  /** `--skip`: check IDs or layer names not to run; what needs them is not run either. */
  skip?: string[];
  /** `-f, --output-file`: write the output there instead of stdout (`-`: stdout). */
  outputFile?: string;
  /** Overall bound of the run (`0` = none). */
  timeout: string;
  /** Bound of each API request and exec (`0` = none); absent: 30s. */
  requestTimeout?: string;
  sampleInterval: string;
  latencyThreshold: string;
  networkProbes: boolean;
  udpPrecise?: boolean;
  color: boolean;
  verbose?: boolean;
  quiet?: boolean;
  /** `--active`: the passive catalog, then the active probes (cli/probe_cmd.ts), in one report. */
  active?: boolean;
  /** `--probes`: which probes `--active` runs (default all that apply to the mode). */
  probes?: string[];
}

/** The two bounds of a run: each API request/exec (`--request-timeout`) and the whole run (`--timeout`). */
export interface Timeouts {
  requestTimeoutMs: number;
  runTimeoutMs: number;
}

/** The timeouts from the flags (`0` = none: {@link NO_TIMEOUT_MS}; absent: the defaults). */
export function timeoutsFrom(opts: { timeout?: string; requestTimeout?: string }): Timeouts {
  return {
    requestTimeoutMs: durationOption(
      "--request-timeout",
      opts.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT,
      true,
    ),
    runTimeoutMs: durationOption("--timeout", opts.timeout ?? DEFAULT_RUN_TIMEOUT, true),
  };
}

/**
 * Run options from the flags of `check` or `report` (an absent --latency-threshold means 200ms).
 * A check may wait for two `wg show` samples, each bounded by the request timeout, with the
 * sampling interval between them: that is its own timeout (never beyond the run's).
 */
export function runOptionsFrom(
  opts: Pick<CheckCommandOptions, "networkProbes" | "udpPrecise" | "sampleInterval"> & {
    latencyThreshold?: string;
    timeout?: string;
    requestTimeout?: string;
  },
): RunOptions {
  if (opts.udpPrecise === true && opts.networkProbes !== false) requireFfi();
  const sampleIntervalMs = durationOption("--sample-interval", opts.sampleInterval);
  const { requestTimeoutMs, runTimeoutMs } = timeoutsFrom(opts);
  return {
    networkProbes: opts.networkProbes !== false,
    preciseUdp: opts.udpPrecise === true,
    sampleIntervalMs,
    latencyThresholdMs: durationOption(
      "--latency-threshold",
      opts.latencyThreshold ?? RUN_DEFAULTS.latencyThreshold,
    ),
    checkTimeoutMs: Math.min(2 * requestTimeoutMs + sampleIntervalMs, runTimeoutMs),
  };
}

/**
 * `--udp-precise` opens a libc socket through Deno FFI, which no entry point grants by default (FFI
 * bypasses Deno's net sandbox): without `--allow-ffi` the flag could only degrade GW-05 to `unknown`
 * unseen, so the run stops at once and says how to grant it.
 */
function requireFfi(): void {
  if (Deno.permissions.querySync({ name: "ffi" }).state === "granted") return;
  throw new PermissionError(
    "--allow-ffi",
    "use --udp-precise: a libc UDP socket that sees ICMP port-unreachable; FFI bypasses Deno's net " +
      "sandbox, so no entry point grants it — add it to the deno run line, or drop --udp-precise",
  );
}

/** The catalog `--only`/`--skip` select (undefined: the whole catalog); an unknown ID is exit 3. */
export async function catalogFrom(
  opts: Pick<CheckCommandOptions, "only" | "skip">,
): Promise<readonly CheckDef[] | undefined> {
  return (await selectionFrom(opts)).catalog;
}

/**
 * What `--only`/`--skip` select: the passive catalog (undefined: all of it) and, for `--active`,
 * the probes (PROBE-* IDs or the layer `probe`; null: not narrowed). `--only` naming probes alone
 * runs the passive checks the probes plan from, unreported. A PROBE-* ID without `--active` is exit 3.
 */
export async function selectionFrom(
  opts: Pick<CheckCommandOptions, "only" | "skip" | "active">,
): Promise<{
  catalog: readonly CheckDef[] | undefined;
  probes: string[] | null;
  passive: boolean;
  /** PROBE-* IDs named by `--skip` (listed as skipped, like passive checks). */
  skippedProbes: string[];
}> {
  if (!opts.only?.length && !opts.skip?.length) {
    return { catalog: undefined, probes: null, passive: true, skippedProbes: [] };
  }
  const [
    { CATALOG, PROBE_CHECKS, PREFLIGHT_CATALOG },
    { PASSIVE_CHECKS },
    { resolveSelection, selectCatalog },
    {
      LAYERS,
    },
  ] = await Promise.all([
    import("../active/mod.ts"),
    import("../checks/catalog.ts"),
    import("../checks/ids.ts"),
    import("../checks/types.ts"),
  ]);
  const known = CATALOG;
  // A PF-* ID belongs to `flyingfish preflight`, which judges two clusters before they peer.
  const pf = [...opts.only ?? [], ...opts.skip ?? []].flatMap((e) => e.split(",")).find((e) =>
    PREFLIGHT_CATALOG.some((c) => c.id === e.trim().toUpperCase())
  );
  if (pf) {
    throw new ToolError(
      `${pf.trim()} is a preflight check: run \`flyingfish preflight\` (docs/preflight.md)`,
    );
  }
  const only = resolveSelection(opts.only ?? [], known);
  const skip = resolveSelection(opts.skip ?? [], known);
  const errors = [
    ...only.errors.map((e) => `--only: ${withLayerHint(e, LAYERS)}`),
    ...skip.errors.map((e) => `--skip: ${withLayerHint(e, LAYERS)}`),
  ];
  if (errors.length) throw new ToolError(errors.join("; "));
  const isProbe = (id: string) => PROBE_CHECKS.some((p) => p.id === id);
  const named = [...only.ids, ...skip.ids].filter(isProbe);
  if (named.length && !opts.active) {
    throw new ToolError(`${named[0]} is an active probe: add --active (or run \`flyingfish probe\`)`);
  }
  const passiveOnly = only.ids.filter((id) => !isProbe(id));
  const probeOnly = only.ids.filter(isProbe);
  // `--only` naming probes picks them; otherwise `--active` runs the mode's default set. Skipped
  // probes are taken out once the mode is known (cli/probe_cmd.ts).
  const probes = probeOnly.length
    ? PROBE_CHECKS.filter((p) => probeOnly.includes(p.id) && !skip.ids.includes(p.id)).map((p) =>
      p.active.probe
    )
    : null;
  const passive = only.ids.length === 0 || passiveOnly.length > 0;
  const catalog = selectCatalog(PASSIVE_CHECKS, {
    only: only.ids.length ? passiveOnly : [],
    skip: skip.ids.filter((id) => !isProbe(id)),
  });
  return { catalog, probes, passive, skippedProbes: skip.ids.filter(isProbe) };
}

/**
 * A refusal of `--only`/`--skip` that suggests no check ID gets the layer the entry is a typo of
 * (`gatewy` → `did you mean the layer gateway?`).
 */
function withLayerHint(error: string, layers: readonly string[]): string {
  const m = /^no check "([^"]*)"( \(see|$)/.exec(error);
  if (!m) return error;
  const hint = didYouMean(m[1], layers);
  return hint
    ? error.replace(
      `no check "${m[1]}"`,
      `no check or layer "${m[1]}"${hint.replace("mean ", "mean the layer ")}`,
    )
    : error;
}

/** Connects to the clusters the flags name (live, or a snapshot bundle); a remote left out is said on stderr. */
export function openSources(opts: ClusterFlags, requestTimeoutMs: number): Promise<OpenSources> {
  return openClusterSources(
    opts,
    requestTimeoutMs,
    (error, local) => console.error(`flyingfish: ${error} — checking ${local} alone`),
  );
}

/** Runs the check command; returns the exit code. */
export async function runCheckCommand(opts: CheckCommandOptions & FleetFlags): Promise<number> {
  const { isFleet, checkFleetFlags, runFleetCommand } = await import("./fleet_cmd.ts");
  const fleet = isFleet(opts);
  checkFleetFlags(opts as CheckCommandOptions & FleetFlags & Record<string, unknown>, fleet);
  const options = runOptionsFrom(opts);
  const { requestTimeoutMs, runTimeoutMs } = timeoutsFrom(opts);
  const selection = await selectionFrom(opts);
  const catalog = selection.catalog;
  if (fleet) {
    return await runFleetCommand(opts, {
      options,
      requestTimeoutMs,
      runTimeoutMs,
      timeout: opts.timeout,
      ...(catalog ? { catalog } : {}),
      format: opts.output,
      ...(opts.outputFile ? { outputFile: opts.outputFile } : {}),
      color: opts.color,
      verbose: opts.verbose,
      quiet: opts.quiet,
    });
  }
  preloadRunModules();
  if (opts.probes?.length) throw new ToolError("--probes selects the probes of --active: add --active");
  if (opts.outputFile && opts.outputFile !== "-") {
    // Asked before any cluster is touched, like `report --output-file`.
    const { requireWrite } = await import("./report_file.ts");
    requireWrite(opts.outputFile);
  }
  return await withSources(opts, requestTimeoutMs, runTimeoutMs, async ({ local, remote }) => {
    const { cliInvocation } = await import("../report/invocation.ts");
    const invocation = cliInvocation(opts);
    const printOpts: CheckCommandOptions & { catalog?: readonly CheckDef[]; invocation?: Invocation } = {
      ...opts,
      catalog,
      invocation,
    };
    const report = await diagnoseAndPrint(local, remote, options, printOpts);
    return report.exitCode;
  });
}

/**
 * Opens the clusters the flags name and runs `fn` on them within the run's `--timeout` (past it,
 * the connections are closed and the run stops); the sources are closed afterwards either way.
 */
export async function withSources<T>(
  opts: ClusterFlags & { timeout: string },
  requestTimeoutMs: number,
  runTimeoutMs: number,
  fn: (sources: OpenSources) => Promise<T>,
): Promise<T> {
  return await withDeadline(runTimeoutMs, opts.timeout, async (onExpiry) => {
    const sources = await openSources(opts, requestTimeoutMs);
    const close = async () => {
      await sources.local.close();
      await sources.remote?.source?.close();
    };
    onExpiry(close);
    try {
      return await fn(sources);
    } finally {
      await close();
    }
  });
}

/**
 * Starts loading the modules a run needs (engine and checks, probes, renderers) while the
 * kubeconfig is read and the first requests are out; the later imports find them loaded.
 */
export function preloadRunModules(): void {
  for (
    const m of [
      import("../diagnose/run.ts"),
      import("../probes/live_hub.ts"),
      import("../render/render.ts"),
      import("../render/text.ts"),
      import("../render/live.ts"),
      import("../render/context.ts"),
    ]
  ) m.catch(() => {}); // a failure surfaces, mapped, where the module is used
}

/** Progress hooks of a diagnosis run. */
export interface DiagnoseHooks {
  /** A check instance started. */
  onStart?: (i: { id: string; cluster: string; peer: string | null }) => void;
  /** A check result arrived. */
  onResult?: (r: CheckResult) => void;
  /** The checks to run (`--only`/`--skip`); the whole catalog when absent. */
  catalog?: readonly CheckDef[];
  /** How the user ran FlyingFish (recorded in the report; remediation commands name its clusters). */
  invocation?: Invocation;
  /** The active phase of an active run (diagnose/active.ts). */
  activePhase?: DiagnosisRequest["active"];
  /** `flyingfish preflight`: the two clusters are judged before peering (diagnose/run.ts). */
  preflight?: boolean;
}

/** Runs the diagnosis over open sources with the live probe hub; prints nothing. */
export async function diagnoseSources(
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
    catalog: hooks.catalog,
    invocation: hooks.invocation,
    active: hooks.activePhase,
    preflight: hooks.preflight,
    onNotice: (line) => console.error(`flyingfish: ${line}`),
  });
}

/**
 * Runs the diagnosis over open sources and prints it in the requested format.
 *
 * Before the first request it says what it is connecting to (on a terminal, as the first text of
 * the progress line; otherwise one stderr line), so a hung API server does not look like a hung
 * tool. Text on a terminal gets a progress line, erased before the report; the report itself is
 * printed whole at the end, in catalog order, like through a pipe. Machine formats get the cluster
 * lines of the text header on stderr. `-q` adds nothing.
 */
export async function diagnoseAndPrint(
  local: ClusterSource,
  remote: OpenSources["remote"],
  options: RunOptions,
  opts: {
    output: string;
    color?: boolean;
    verbose?: boolean;
    quiet?: boolean;
    peer?: string[];
    catalog?: readonly CheckDef[];
    invocation?: Invocation;
    /** The active phase of an active run (`--active` is the flag that asks for one). */
    activePhase?: DiagnosisRequest["active"];
    /** What of the report is printed and returned (`probe` keeps only the probe results). */
    select?: (report: Report) => Report;
    /** Write the rendered report to this file instead of stdout (`-` or absent: stdout). */
    outputFile?: string;
    /** `flyingfish preflight` (see {@link DiagnoseHooks.preflight}). */
    preflight?: boolean;
  },
): Promise<Report> {
  const [{ render }, { LiveProgress }, { clusterLines, connectingLine }] = await Promise.all([
    import("../render/render.ts"),
    import("../render/live.ts"),
    import("../render/context.ts"),
  ]);
  const color = useColor(opts.color);
  const text = opts.output === "text";
  const quiet = opts.quiet === true;
  const tty = text && stdoutIsTty();
  const width = tty ? terminalColumns() : undefined;
  const sources = remote?.source ? [local, remote.source] : [local];
  const connecting = connectingLine(sources.map((s) => ({ ...s.endpoint, snapshot: s.isSnapshot })));
  const live = tty && !quiet
    ? new LiveProgress(writeOut, { color, columns: width!, status: connecting })
    : null;
  if (!live && !quiet) writeErr(`${connecting}\n`);
  setProgress(live);
  let report: Report;
  try {
    report = await diagnoseSources(local, remote, options, opts.peer, {
      onStart: live ? (i) => live.start(i.id, i.cluster, i.peer) : undefined,
      onResult: live ? (r) => live.result(r) : undefined,
      catalog: opts.catalog,
      invocation: opts.invocation,
      activePhase: opts.activePhase,
      preflight: opts.preflight,
    });
  } finally {
    stopProgress();
  }
  if (opts.select) report = opts.select(report);
  if (!text && !quiet) writeErr(clusterLines(report).map((l) => ` ${l}\n`).join(""));
  const file = opts.outputFile && opts.outputFile !== "-" ? opts.outputFile : null;
  if (opts.output === "json") {
    // Streamed: a report over thousands of peers is printed as it is produced, never one string.
    const { jsonChunks } = await import("../render/json.ts");
    if (file) {
      const { writeReportFile } = await import("./report_file.ts");
      await writeReportFile(file, jsonChunks(report));
      writeErr(`flyingfish: wrote ${opts.output} report to ${file}\n`);
    } else {
      // The pieces' garbage (each element put in order, then printed) is collected as it goes.
      const heap = (await import("../heap.ts")).heapBound();
      heap.check();
      writePieces(jsonChunks(report), (s) => {
        writeOut(s);
        heap.check();
      });
    }
    return report;
  }
  const rendered = render(report, opts.output as Format, {
    color: file ? false : color,
    verbose: opts.verbose === true,
    quiet,
    width: file ? undefined : width,
  });
  if (file) {
    const { writeReportFile } = await import("./report_file.ts");
    await writeReportFile(file, rendered);
    writeErr(`flyingfish: wrote ${opts.output} report to ${file}\n`);
  } else writeOut(rendered);
  return report;
}
