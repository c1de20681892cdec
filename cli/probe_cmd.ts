/**
 * `flyingfish probe [matrix|udp|mtu|service|trace|all…]` and `flyingfish check --active`: the
 * passive run first (its views plan the fleet; its diagnosis comes first), then the active probes
 * over the SAME clients (active/session.ts), then one report. Also `probe --cleanup` (leftovers by
 * label) and `--print-images`.
 *
 * Signals: the first SIGINT/SIGTERM aborts the probes — the session cleans up within its own
 * budget and the report says what was removed; a second one exits 130 at once, printing the
 * `flyingfish probe --cleanup --run-id …` command that finishes the job. `--timeout` aborts the
 * probes the same way (the cleanup budget comes on top of it).
 */
import { fix, flyingfish } from "../checks/remediation.ts";
import { ToolError } from "../errors.ts";
import type { KubeClient } from "../kube/live/client.ts";
import type { LiveClusterSource } from "../kube/live/source.ts";
import type { CheckResult, RunOptions } from "../checks/types.ts";
import { PROBE_CHECKS } from "../active/catalog.ts";
import { PROBE_NAMES, type ProbeMode, type ProbeName } from "../active/model.ts";
import type { ActiveRunRecord, CleanupRecord } from "../active/model.ts";
import type { AfterChecks } from "../diagnose/run.ts";
import type { Fab03Amendment, FabricEnd } from "../active/fab03_active.ts";
import type { Report } from "../report/model.ts";
import type { Invocation } from "../report/invocation.ts";
import {
  type CheckCommandOptions,
  diagnoseAndPrint,
  durationOption,
  preloadRunModules,
  runOptionsFrom,
  selectionFrom,
  timeoutsFrom,
} from "./check.ts";
import { NO_TIMEOUT_MS, withDeadline } from "./deadline.ts";
import { openRemote } from "./remote.ts";
import { writeErr, writeOut } from "./output.ts";

/** The probe flags, shared by `probe` and `check --active`. */
export interface ProbeFlags {
  /** `--mode direct|offload` (default: direct with --remote-kubeconfig, else offload). */
  mode?: string;
  keep?: boolean;
  /** `--image NAME=REF`, repeatable. */
  image?: string[];
  imageRegistry?: string;
  printImages?: boolean;
  /** `--tolerate KEY`, repeatable. */
  tolerate?: string[];
  probeTimeout?: string;
  cleanupTimeout?: string;
}

/** Options of `flyingfish probe`, as parsed by commander. */
export interface ProbeCommandOptions
  extends Omit<CheckCommandOptions, "only" | "skip" | "output">, ProbeFlags {
  output: CheckCommandOptions["output"] | "html";
  /** `-f`: write the report to this file (needs --allow-write). */
  outputFile?: string;
  cleanup?: boolean;
  runId?: string;
  all?: boolean;
}

/** Default of `--probe-timeout`: bringing the fleet up, and each probe. */
export const DEFAULT_PROBE_TIMEOUT = "60s";
/** Default of `--cleanup-timeout`: the cleanup's own budget. */
export const DEFAULT_CLEANUP_TIMEOUT = "30s";

/**
 * What `all` (or no name) means in a mode: every probe, in both modes. In direct mode the service
 * probe offloads the run namespace to the peer as well (a Service is reflected only from an
 * offloaded namespace; active/offload.ts offloadingWanted) and reads the reflection on the provider.
 */
export function probesFor(_mode: ProbeMode): ProbeName[] {
  return [...PROBE_NAMES];
}

/**
 * The probes named on the command line (`matrix`, `udp`, …, `all`; comma-separated or several
 * words; also their check IDs, any case). None named = all. An unknown name is exit 3.
 */
export function resolveProbeNames(args: readonly string[], mode: ProbeMode): ProbeName[] {
  const words = args.flatMap((a) => a.split(",")).map((w) => w.trim().toLowerCase()).filter(Boolean);
  if (words.length === 0 || words.includes("all")) return probesFor(mode);
  const out = new Set<ProbeName>();
  for (const w of words) {
    const byId = PROBE_CHECKS.find((c) => c.id.toLowerCase() === w)?.probe;
    const name = (PROBE_NAMES as readonly string[]).includes(w) ? w as ProbeName : byId;
    if (!name) {
      throw new ToolError(
        `unknown probe "${w}": expected ${[...PROBE_NAMES, "all"].join(", ")} (or a PROBE-* ID)`,
      );
    }
    out.add(name);
  }
  return PROBE_NAMES.filter((p) => out.has(p));
}

/** The mode from the flag, or the default (direct with a remote kubeconfig, else offload). */
export function modeFrom(flag: string | undefined, hasRemote: boolean): ProbeMode {
  if (flag === undefined) return hasRemote ? "direct" : "offload";
  if (flag !== "direct" && flag !== "offload") {
    throw new ToolError(`invalid --mode "${flag}": expected direct or offload`);
  }
  if (flag === "direct" && !hasRemote) {
    throw new ToolError(
      "--mode direct creates probe pods in both clusters: it needs --remote-kubeconfig (or --remote-context); " +
        "with one kubeconfig, use --mode offload",
    );
  }
  return flag;
}

/** The options of the active session from the flags (everything validated: bad values are exit 3). */
export async function activeOptionsFrom(
  flags: ProbeFlags & { peer?: string[] },
  probes: readonly string[],
  hasRemote: boolean,
) {
  const mode = modeFrom(flags.mode, hasRemote);
  const { resolveImages } = await import("../active/fleet/images.ts");
  const { newRunId } = await import("../active/fleet/run_id.ts");
  if ((flags.peer?.length ?? 0) > 1) {
    throw new ToolError("probes run against one peer at a time: give one --peer");
  }
  return {
    probes: resolveProbeNames(probes, mode),
    mode,
    peer: flags.peer?.[0] ?? null,
    keep: flags.keep === true,
    images: resolveImages(flags.image ?? [], flags.imageRegistry),
    tolerate: [
      ...new Set((flags.tolerate ?? []).flatMap((t) => t.split(",")).map((t) => t.trim()).filter(Boolean)),
    ],
    probeTimeoutMs: durationOption("--probe-timeout", flags.probeTimeout ?? DEFAULT_PROBE_TIMEOUT),
    cleanupTimeoutMs: durationOption("--cleanup-timeout", flags.cleanupTimeout ?? DEFAULT_CLEANUP_TIMEOUT),
    runId: newRunId(),
  };
}

/** The live clusters of an active run: sources for the passive run, clients for the writes. */
export interface ActiveClusters {
  local: { source: LiveClusterSource; client: KubeClient };
  remote: { source: LiveClusterSource | null; client: KubeClient | null; error?: string } | null;
}

/** Opens the clusters the flags name, keeping each one's client (ONE connection per cluster). */
async function openActiveClusters(
  opts: CheckCommandOptions,
  requestTimeoutMs: number,
): Promise<ActiveClusters> {
  if (opts.snapshot !== undefined) {
    throw new ToolError("active probes need live clusters: --snapshot cannot be combined with probes");
  }
  const { openLiveCluster } = await import("../kube/live/source.ts");
  const local = await openLiveCluster({
    kubeconfig: opts.kubeconfig,
    context: opts.context,
    requestTimeoutMs,
  });
  let remoteClient: KubeClient | null = null;
  const remote = await openRemote(
    opts,
    async (o) => {
      const c = await openLiveCluster({ ...o, requestTimeoutMs });
      remoteClient = c.client;
      return c.source;
    },
    (error) => console.error(`flyingfish: ${error} — probing from ${local.source.endpoint.context} alone`),
  );
  return {
    local: { source: local.source, client: local.client },
    remote: remote ? { source: remote.source, client: remoteClient, error: remote.error } : null,
  };
}

/** The probe targets over the clients already open (the same connections the passive run used). */
async function targetsOf(
  clusters: ActiveClusters,
  opts: CheckCommandOptions,
  names?: [string, string | null],
) {
  const { probeTarget, clusterFlags } = await import("../active/fleet/target.ts");
  const local = probeTarget({
    side: "local",
    name: names?.[0] ?? clusters.local.source.endpoint.context,
    client: clusters.local.client,
    exec: (ns, pod, c, cmd) => clusters.local.source.exec(ns, pod, c, cmd),
    flags: clusterFlags("local", opts.kubeconfig, opts.context),
  });
  const r = clusters.remote;
  const remote = r?.source && r.client
    ? probeTarget({
      side: "remote",
      name: names?.[1] ?? r.source.endpoint.context,
      client: r.client,
      exec: (ns, pod, c, cmd) => r.source!.exec(ns, pod, c, cmd),
      flags: clusterFlags("remote", opts.remoteKubeconfig, opts.remoteContext ?? undefined),
    })
    : null;
  return { local, remote };
}

/** What one active run prints: passive + probes (`check --active`) or probes only (`probe`). */
type Scope = "check" | "probe";

/**
 * The passive run, then the probes over the same views and clients; prints the report. Returns
 * the exit code (130 after an interruption, once the cleanup is done and the report printed).
 */
export async function runActiveReport(
  scope: Scope,
  probes: readonly string[],
  opts: CheckCommandOptions & ProbeFlags,
  invocation: Invocation,
  more: {
    /** The passive checks (`--only`/`--skip`); default the whole catalog. */
    catalog?: Parameters<typeof diagnoseAndPrint>[3]["catalog"];
    /** PROBE-* IDs skipped by `--skip`: listed as `skip` (disabled), like skipped passive checks. */
    skipped?: readonly string[];
    /** Opens the clusters (default: from the kubeconfig flags); the demo serves its own. */
    open?: (requestTimeoutMs: number) => Promise<ActiveClusters>;
  } = {},
): Promise<number> {
  const { catalog } = more;
  const open = more.open ?? ((ms: number) => openActiveClusters(opts, ms));
  const options: RunOptions = runOptionsFrom(opts);
  const { requestTimeoutMs, runTimeoutMs } = timeoutsFrom(opts);
  const hasRemote = Boolean(opts.remoteKubeconfig || opts.remoteContext);
  const requested = await activeOptionsFrom(opts, probes, hasRemote);
  const skippedNames = PROBE_CHECKS.filter((c) => more.skipped?.includes(c.id)).map((c) => c.probe);
  const active = { ...requested, probes: requested.probes.filter((p) => !skippedNames.includes(p)) };
  if (active.probes.length === 0) throw new ToolError("every probe is skipped (--skip): nothing to probe");
  const [{ runActive }, { cleanupCommand, clusterFlags }] = await Promise.all([
    import("../active/session.ts"),
    import("../active/fleet/target.ts"),
  ]);
  // What to run to remove a kept or stuck run: every cluster this run may have written to.
  const hint = cleanupCommand(active.runId, [
    { flags: clusterFlags("local", opts.kubeconfig, opts.context) },
    ...(hasRemote
      ? [{ flags: clusterFlags("remote", opts.remoteKubeconfig ?? opts.kubeconfig, opts.remoteContext) }]
      : []),
  ]);
  const started = Date.now();
  let stoppedBy: string | null = null;
  // The passive FAB-03 results the matrix failed (its active half): `probe` shows them too.
  let activeHalf: CheckResult[] = [];
  // The session owns SIGINT/SIGTERM and --timeout once probe objects may exist (active/session.ts:
  // a first signal stops the probes and cleans up, a second exits 130 printing the cleanup
  // command). The hard deadline leaves room for the cleanup budget on top of --timeout.
  const hardMs = Math.min(runTimeoutMs + active.cleanupTimeoutMs + 5_000, NO_TIMEOUT_MS);
  const { RunStopped } = await import("../active/fleet/signals.ts");
  const stopped = (err: unknown): string | null => {
    // The session rethrows the stop when it came before any result (e.g. while the pods started).
    const e = err instanceof RunStopped ? err : (err as { cause?: unknown })?.cause;
    return e instanceof RunStopped ? e.by : null;
  };
  const report = await withDeadline(hardMs, opts.timeout, async (onExpiry) => {
    const clusters = await open(requestTimeoutMs);
    const close = async () => {
      await clusters.local.source.close();
      await clusters.remote?.source?.close();
    };
    onExpiry(close);
    try {
      const after = async (view: AfterChecks) => {
        const targets = await targetsOf(clusters, opts, [view.local.name, view.remote?.name ?? null]);
        if (active.mode === "direct" && (!view.remote || !targets.remote)) {
          return {
            results: unknownProbes(
              active.probes,
              view.local.name,
              `direct mode needs the remote cluster${
                clusters.remote?.error ? ` (${clusters.remote.error})` : ""
              }`,
            ),
            active: null,
          };
        }
        const left = runTimeoutMs >= NO_TIMEOUT_MS
          ? undefined
          : Math.max(1, runTimeoutMs - (Date.now() - started));
        const out = await runActive(
          { side: "local", view: view.local, target: targets.local },
          view.remote && targets.remote
            ? { side: "remote", view: view.remote, target: targets.remote }
            : null,
          active,
          {
            signal: new AbortController().signal,
            runTimeoutMs: left,
            // console.error: on a terminal it first erases the passive run's progress line.
            onProgress: opts.quiet ? undefined : (l: string) => console.error(`flyingfish: ${l}`),
            write: (l: string) => console.error(`flyingfish: ${l}`),
          },
        );
        stoppedBy = out.stoppedBy ?? null;
        const fabric = await fabricActiveHalf(view, out.record);
        activeHalf = fabric?.failedByActive ?? [];
        return {
          results: [...out.results, ...skippedProbes(more.skipped ?? [], view.local.name)],
          active: out.record,
          ...(fabric ? { passive: fabric.results } : {}),
        };
      };
      const afterOrStop = async (view: AfterChecks) => {
        try {
          return await after(view);
        } catch (err) {
          const by = stopped(err);
          if (by === null) throw err;
          stoppedBy = by;
          const why = by === "timeout" ? `--timeout ${opts.timeout} reached` : `interrupted by ${by}`;
          return {
            results: unknownProbes(
              active.probes,
              view.local.name,
              `${why}; what it created was removed`,
              true,
            ),
            active: null,
          };
        }
      };
      const report = await diagnoseAndPrint(
        clusters.local.source,
        clusters.remote ? { source: clusters.remote.source, error: clusters.remote.error } : null,
        options,
        {
          ...opts,
          catalog,
          invocation,
          extraReads: PROBE_CHECKS.filter((c) => active.probes.includes(c.probe)),
          after: afterOrStop,
          select: scope === "probe" ? (r: Report) => probeOnly(r, activeHalf) : undefined,
        },
      );
      printCleanupHint(report, hint, opts.quiet === true);
      const d = report.diagnosis;
      if (scope === "probe" && d && d.layer !== "probe" && !activeHalf.some(sameResult(d)) && !opts.quiet) {
        // `probe` lists only PROBE results: say that the diagnosis is a passive check, and where it is.
        writeErr(
          `flyingfish: the diagnosis is a passive check (${d.id}): the probes ran on a peering already ` +
            `broken there; \`flyingfish check\` shows it in full\n`,
        );
      }
      return report;
    } finally {
      await close();
    }
  });
  if (stoppedBy === "SIGINT" || stoppedBy === "SIGTERM") return 130;
  if (stoppedBy === "timeout") {
    writeErr(
      `flyingfish: the run did not finish within --timeout ${opts.timeout}: the probes were stopped and ` +
        `their objects removed (see the report); raise --timeout (0 = no limit)\n`,
    );
    return 3;
  }
  return report.exitCode;
}

/**
 * FAB-03's active half (active/fab03_active.ts): the passive FAB-03 of each end of the probed
 * peering amended in place by the matrix. Null when the matrix did not run.
 */
async function fabricActiveHalf(
  view: AfterChecks,
  record: ActiveRunRecord | null,
): Promise<Fab03Amendment | null> {
  if (!record?.matrix) return null;
  const { amendFab03 } = await import("../active/fab03_active.ts");
  const ends: FabricEnd[] = [
    { cluster: view.local.name, peer: record.peer, liqoNamespace: view.local.liqoNamespace ?? "liqo" },
  ];
  if (view.remote) {
    // The remote's FAB-03 for this peering names the local cluster by its ID.
    ends.push({
      cluster: view.remote.name,
      peer: view.local.clusterId ?? view.local.name,
      liqoNamespace: view.remote.liqoNamespace ?? "liqo",
    });
  }
  return amendFab03(view.results, record.matrix, ends);
}

/** Matches a result (or the diagnosis) by check, cluster and peer. */
function sameResult(x: { id: string; cluster: string; peer: string | null }) {
  return (r: { id: string; cluster: string; peer: string | null }) =>
    r.id === x.id && r.cluster === x.cluster && r.peer === x.peer;
}

/** The probes `--skip` named, as `skip` results (disabled), so the report never looks complete when it is not. */
function skippedProbes(ids: readonly string[], cluster: string): CheckResult[] {
  return PROBE_CHECKS.filter((c) => ids.includes(c.id)).map((c) => ({
    id: c.id,
    title: c.title,
    layer: c.layer,
    status: "skip",
    peer: null,
    cluster,
    summary: `skipped (--skip ${c.id})`,
    evidence: [],
    remediation: [],
    blockedBy: null,
    skipKind: "disabled",
    durationMs: 0,
  }));
}

/** Every selected probe `unknown` with the reason (no usable remote cluster in direct mode, a stop). */
function unknownProbes(
  probes: readonly ProbeName[],
  cluster: string,
  why: string,
  stopped = false,
): CheckResult[] {
  return PROBE_CHECKS.filter((c) => probes.includes(c.probe)).map((c) => ({
    id: c.id,
    title: c.title,
    layer: c.layer,
    status: "unknown",
    peer: null,
    cluster,
    summary: `not probed: ${why}`,
    evidence: [],
    remediation: stopped ? [] : fix(
      "fix access to the remote cluster, or probe through Liqo with one kubeconfig:",
      flyingfish("probe", "--mode", "offload"),
    ),
    blockedBy: null,
    skipKind: null,
    durationMs: 0,
  }));
}

/**
 * `probe`'s report: only the PROBE results — and `activeHalf`, the passive results the probes
 * failed (FAB-03 when the matrix shows a node's broken Geneve path: the probe's own finding, under
 * the check it speaks for). A passive result the probes merely confirmed or annotated stays out
 * (`check --active` shows it). The diagnosis stays the whole run's: when a passive check failed it
 * comes first (probes on a broken peering say little), and the exit code counts it.
 */
export function probeOnly(
  report: Report,
  activeHalf: readonly { id: string; cluster: string; peer: string | null }[] = [],
): Report {
  const results = report.results.filter((r) =>
    r.layer === "probe" || activeHalf.some((a) => sameResult(a)(r))
  );
  const summary = { pass: 0, warn: 0, fail: 0, skip: 0, unknown: 0, total: results.length };
  for (const r of results) summary[r.status]++;
  const passiveBroken = report.diagnosis !== null && report.diagnosis.layer !== "probe";
  const exitCode = passiveBroken || summary.fail > 0 ? 2 : summary.warn + summary.unknown > 0 ? 1 : 0;
  return { ...report, results, summary, exitCode: report.exitCode === 3 ? 3 : exitCode };
}

/** After the report: kept or stuck namespaces get the command that removes them (stderr). */
function printCleanupHint(report: Report, command: string, quiet: boolean): void {
  const left = (report.active?.cleanup ?? []).filter((c) => c.status !== "removed");
  if (left.length === 0 || quiet) return;
  writeErr(
    `flyingfish: left in place: ${left.map((c) => `${c.cluster}/${c.namespace} (${c.status})`).join(", ")}\n`,
  );
  writeErr(`flyingfish: remove with: ${command}\n`);
}

/** `flyingfish probe --cleanup [--run-id ID | --all]` on every kubeconfig given; exit 0, or 1 if something is left. */
async function runCleanup(opts: ProbeCommandOptions): Promise<number> {
  const { requestTimeoutMs, runTimeoutMs } = timeoutsFrom(opts);
  const budgetMs = durationOption("--cleanup-timeout", opts.cleanupTimeout ?? DEFAULT_CLEANUP_TIMEOUT);
  const [{ cleanupLeftovers }, { parseRunId }] = await Promise.all([
    import("../active/fleet/cleanup.ts"),
    import("../active/fleet/run_id.ts"),
  ]);
  if (opts.runId !== undefined && opts.all) {
    throw new ToolError("--cleanup takes --run-id ID or --all, not both");
  }
  const runId = opts.runId === undefined ? undefined : parseRunId(opts.runId);
  return await withSourcesDeadline(opts, runTimeoutMs, async () => {
    const clusters = await openActiveClusters(opts, requestTimeoutMs);
    try {
      const t = await targetsOf(clusters, opts);
      const records = await cleanupLeftovers(t.remote ? [t.local, t.remote] : [t.local], {
        runId,
        all: opts.all === true,
        budgetMs,
      });
      writeOut(cleanupText(records, opts.output));
      return records.some((r) => r.status === "stuck" || r.status === "failed") ? 1 : 0;
    } finally {
      await clusters.local.source.close();
      await clusters.remote?.source?.close();
    }
  });
}

function withSourcesDeadline<T>(opts: { timeout: string }, ms: number, fn: () => Promise<T>): Promise<T> {
  return withDeadline(ms, opts.timeout, () => fn());
}

/** The cleanup's outcome: JSON/YAML `{cleanup: [...]}`, else one line per namespace. */
export function cleanupText(records: readonly CleanupRecord[], output: string): string {
  if (output === "json") return JSON.stringify({ cleanup: records }, null, 2) + "\n";
  if (output === "yaml") {
    return "cleanup:\n" + records.map((r) =>
      `  - cluster: ${JSON.stringify(r.cluster)}\n    namespace: ${JSON.stringify(r.namespace)}\n` +
      `    status: ${r.status}\n    detail: ${JSON.stringify(r.detail)}\n`
    ).join("") + (records.length ? "" : "  []\n");
  }
  if (records.length === 0) {
    return "nothing to clean up: no namespace labelled app.kubernetes.io/managed-by=flyingfish\n";
  }
  const mark = { removed: "✓", kept: "·", stuck: "!", failed: "✗" } as const;
  return records.map((r) =>
    `${mark[r.status]} ${r.cluster}: ${r.namespace} ${r.status}${r.detail ? ` — ${r.detail}` : ""}`
  )
    .join("\n") + "\n";
}

/**
 * `flyingfish check --active`: the passive catalog (as `--only/--skip` select it), then the probes,
 * in one report.
 */
export async function runCheckActive(opts: CheckCommandOptions): Promise<number> {
  const selection = await selectionFrom(opts);
  preloadRunModules();
  const { cliInvocation } = await import("../report/invocation.ts");
  if (selection.probes?.length === 0) {
    throw new ToolError("--active with every probe skipped: nothing to probe");
  }
  const probes = selection.probes ?? opts.probes ?? [];
  return await runActiveReport(selection.passive ? "check" : "probe", probes, opts, cliInvocation(opts), {
    catalog: selection.catalog,
    skipped: selection.skippedProbes,
  });
}

/** Runs `flyingfish probe`; returns the exit code. */
export async function runProbeCommand(probes: string[], opts: ProbeCommandOptions): Promise<number> {
  if (opts.printImages) {
    const { resolveImages, printImages } = await import("../active/fleet/images.ts");
    writeOut(printImages(resolveImages(opts.image ?? [], opts.imageRegistry)));
    return 0;
  }
  if (opts.cleanup) {
    if (probes.length) {
      throw new ToolError(`--cleanup removes leftovers: it takes no probe names (got ${probes.join(" ")})`);
    }
    return await runCleanup(opts);
  }
  if (opts.runId !== undefined || opts.all) throw new ToolError("--run-id and --all go with --cleanup");
  if (opts.outputFile && opts.outputFile !== "-") {
    const { requireWrite } = await import("./report_file.ts");
    requireWrite(opts.outputFile);
  }
  const { cliInvocation } = await import("../report/invocation.ts");
  return await runActiveReport(
    "probe",
    probes,
    opts as CheckCommandOptions & ProbeFlags,
    cliInvocation(opts),
  );
}
