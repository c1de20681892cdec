/**
 * FlyingFish, the Liqo connectivity diagnosis, as a program and as a library.
 *
 * As a program, this module is the CLI (`flyingfish check`, `collect`, `report`, `demo`, …):
 *
 * ```sh
 * deno run --unstable-net --allow-env --allow-read --allow-write --allow-net --allow-sys jsr:@flyingfish/cli check
 * ```
 *
 * As a library, it runs the same diagnosis as `flyingfish check` against one or two clusters (or a
 * bundle written by `flyingfish collect`) and returns the report document, the `-o json` contract:
 *
 * ```ts
 * import { diagnose, renderReport } from "@flyingfish/cli";
 * const report = await diagnose({ context: "rome", networkProbes: false });
 * console.log(report.diagnosis?.summary ?? "no failure found", report.exitCode);
 * console.log(renderReport(report, "markdown"));
 * ```
 * @module
 */
import type { Report } from "./report/model.ts";
import type { DiffReport } from "./report/diff_schema.ts";
import { type Format, render } from "./render/render.ts";
import { RUN_DEFAULTS_MS } from "./diagnose/defaults.ts";

export { FORMATS } from "./render/render.ts";
export type { Format } from "./render/render.ts";
export { jsonSchema, LAYERS, SCHEMA_VERSION, STATUSES } from "./report/model.ts";
export type {
  AlsoFailing,
  CheatSheetEntry,
  CheckResult,
  ClusterInfo,
  Diagnosis,
  DumpTable,
  ForeignClusterRow,
  Hop,
  Invocation,
  Layer,
  ModuleCondition,
  PeerInfo,
  PeeringDump,
  PreflightBlock,
  PreflightVerdict,
  RemediationStep,
  Report,
  ReportDiagnosis,
  ReportGap,
  ReportResult,
  ReportSection,
  ReportSummary,
  RunStop,
  SkipKind,
  Status,
} from "./report/model.ts";
/** A check's fix as data (`CheckResult.remediation`): argv and the cluster each command runs on. */
export type {
  ChainedCommand,
  ClusterWord,
  RemediationCommand,
  RemediationStep as CheckRemediationStep,
  RunsOn,
  Word,
} from "./checks/remediation.ts";
export type {
  ActiveMatrix,
  ActiveRunRecord,
  CellState,
  CleanupRecord,
  CreatedObject,
  ExcludedNode,
  MatrixCell,
  MatrixGrid,
  ProbeMode,
  ProbeName,
  Side,
} from "./active/mod.ts";
export { PROBE_NAMES } from "./active/mod.ts";
/** The document of `flyingfish diff` (and a report's `changedSinceHealthy`). */
export type {
  DiffAnswer,
  DiffCheckRef,
  DiffCluster,
  DiffField,
  DiffObjectChange,
  DiffReading,
  DiffReport,
  DiffSide,
  DiffSummary,
  DiffTransition,
} from "./report/diff_schema.ts";
export { VERSION } from "./version.ts";

/** What {@link diagnose} looks at and how; every field is optional, like the flags of `flyingfish check`. */
export interface DiagnoseOptions {
  /** kubeconfig file of the cluster to check (default: `$KUBECONFIG`, then `~/.kube/config`). */
  kubeconfig?: string;
  /** kubeconfig context (default: the current context). */
  context?: string;
  /** kubeconfig of the other end of the peering: both sides are checked and correlated. */
  remoteKubeconfig?: string;
  /** Context of the other end (in `remoteKubeconfig`, or in `kubeconfig` when that is absent). */
  remoteContext?: string;
  /** A bundle written by `flyingfish collect`: diagnosed offline instead of a live cluster. */
  snapshot?: string;
  /** Only these peers (remote cluster IDs or ForeignCluster names). */
  peers?: readonly string[];
  /** Send the host-side probes (GW-05's UDP datagram, API-01's TLS dial); default true. */
  networkProbes?: boolean;
  /** GW-05 through a libc socket that sees ICMP refusals (needs `--allow-ffi`); default false. */
  preciseUdp?: boolean;
  /** Timeout of each check and each API request, in milliseconds; default 30000. */
  timeoutMs?: number;
  /** Time between the two `wg show` samples of TUN-03, in milliseconds; default 3000. */
  sampleIntervalMs?: number;
  /** TUN-05 warns above this tunnel latency, in milliseconds; default 200. */
  latencyThresholdMs?: number;
  /** Aborts the run. */
  signal?: AbortSignal;
}

/**
 * Runs every check, like `flyingfish check`, and returns the report document (`report.exitCode`
 * is the CLI's exit code: 0 healthy, 1 warnings or unknowns, 2 a failure). Throws a `ToolError`
 * (exit code 3 in the CLI) when a cluster cannot be read at all: bad kubeconfig, unreachable API
 * server, rejected credentials, a missing Deno permission.
 */
export async function diagnose(options: DiagnoseOptions = {}): Promise<Report> {
  const timeoutMs = options.timeoutMs ?? RUN_DEFAULTS_MS.requestTimeout;
  const run = {
    networkProbes: options.networkProbes ?? true,
    preciseUdp: options.preciseUdp ?? false,
    sampleIntervalMs: options.sampleIntervalMs ?? RUN_DEFAULTS_MS.sampleInterval,
    latencyThresholdMs: options.latencyThresholdMs ?? RUN_DEFAULTS_MS.latencyThreshold,
    checkTimeoutMs: timeoutMs,
  };
  const [{ runDiagnosis }, { createProbeHub }, { openSources }] = await Promise.all([
    import("./diagnose/run.ts"),
    import("./probes/live_hub.ts"),
    import("./diagnose/open.ts"),
  ]);
  // Like the CLI: a remote that cannot be opened is reported in the report, not thrown.
  const { local, remote } = await openSources(options, timeoutMs, () => {});
  try {
    return await runDiagnosis({
      local,
      remote,
      peers: options.peers,
      options: run,
      signal: options.signal,
      probes: (sources) =>
        createProbeHub({
          sources,
          networkProbes: run.networkProbes,
          preciseUdp: run.preciseUdp,
          sampleIntervalMs: run.sampleIntervalMs,
        }),
    });
  } finally {
    await local.close();
    await remote?.source?.close();
  }
}

/** How {@link renderReport} renders the text format (the other formats ignore it). */
export interface RenderOptions {
  /** ANSI colours; default false. */
  color?: boolean;
  /** Evidence of passing checks too, the run metadata, the peering dump and the cheat sheet. */
  verbose?: boolean;
  /** Only the diagnosis and the counts. */
  quiet?: boolean;
}

/** Renders a report as `flyingfish check -o <format>` (or `report --format html`) prints it. */
export function renderReport(report: Report, format: Format, options: RenderOptions = {}): string {
  return render(report, format, {
    color: options.color ?? false,
    verbose: options.verbose ?? false,
    quiet: options.quiet ?? false,
  });
}

/** What {@link diffBundles} compares and how. */
export interface DiffOptions {
  /** Only these peers' check results (remote cluster IDs or ForeignCluster names). */
  peers?: readonly string[];
}

/**
 * Compares two bundles written by `flyingfish collect`, like `flyingfish diff BEFORE AFTER`: both
 * diagnosed by the same engine (passive, offline), check results first — the earliest newly failing
 * check, the transitions it explains — then the normalised objects behind them. `exitCode` is the
 * CLI's: 0 nothing that matters changed, 1 changed, 2 a check newly fails. Throws a `ToolError`
 * when a bundle cannot be read.
 */
export async function diffBundles(
  before: string,
  after: string,
  options: DiffOptions = {},
): Promise<DiffReport> {
  const [{ sideFromBundle }, { diffSides }, { PASSIVE_CHECKS }] = await Promise.all([
    import("./diff/open.ts"),
    import("./diff/diff.ts"),
    import("./checks/catalog.ts"),
  ]);
  const opts = { catalog: PASSIVE_CHECKS, peers: options.peers, onSkipped: () => {} };
  return diffSides(await sideFromBundle(before, opts), await sideFromBundle(after, opts), PASSIVE_CHECKS);
}

/** Renders a diff as `flyingfish diff -o <format>` prints it (`color` only affects text). */
export async function renderDiffReport(
  diff: DiffReport,
  format: Format,
  options: { color?: boolean; verbose?: boolean } = {},
): Promise<string> {
  const { renderDiff } = await import("./render/diff_formats.ts");
  return renderDiff(diff, format, { color: options.color ?? false, verbose: options.verbose });
}

/** One entry of the check catalog (`flyingfish checks -o json`). */
export interface CheckInfo {
  /** Check ID, e.g. `GW-02`. */
  id: string;
  /** One-line title. */
  title: string;
  /** Layer of the Liqo network the check belongs to. */
  layer: string;
  /** True when the check needs both ends of the peering (`remoteKubeconfig`). */
  needsRemote: boolean;
  /** True when the check runs once per peer rather than once per cluster. */
  perPeer: boolean;
  /** An active check (opt-in: it creates probe objects; `flyingfish probe`, `check --active`). */
  active: boolean;
}

/** The one check catalog (passive and active checks), in dependency order. */
export async function listChecks(): Promise<CheckInfo[]> {
  const { CATALOG } = await import("./active/mod.ts");
  return CATALOG.map((c) => ({
    id: c.id,
    title: c.title,
    layer: c.layer,
    needsRemote: c.scope === "dual",
    perPeer: c.perPeer,
    active: c.active !== undefined,
  }));
}

// `deno run jsr:@flyingfish/cli <command>` (and `deno run mod.ts`): the module run as a program is the CLI.
if (import.meta.main) {
  const { main } = await import("./cli/main.ts");
  Deno.exit(await main(Deno.args));
}
