/**
 * Fleet mode of `check` and `report` (`--all-contexts`, `--contexts`): every selected context of
 * the merged kubeconfig read once, both ends of every link paired (multicluster/), the fleet
 * report printed or written. The flags turn into a fleet request here; nothing else.
 */
import { ToolError } from "../errors.ts";
import type { CheckDef, RunOptions } from "../checks/types.ts";
import type { FleetReport } from "../report/fleet.ts";
import type { FleetClock } from "../multicluster/timings.ts";
import type { ClusterSource } from "../kube/source.ts";
import { durationOption } from "./deadline.ts";
import { stdoutIsTty, terminalColumns, useColor, writeErr, writeOut } from "./output.ts";
import { withDeadline } from "./deadline.ts";

/** The fleet flags shared by `check` and `report`. */
export interface FleetFlags {
  allContexts?: boolean;
  contexts?: string[];
  parallel?: string;
  clusterTimeout?: string;
  /** `--kubeconfig`, repeated values joined by a newline (see cli/program.ts). */
  kubeconfig?: string;
  /** A bundle of `collect --all-contexts`: the fleet replayed offline, one cluster per captured one. */
  snapshot?: string;
}

/** The separator cli/program.ts joins repeated `--kubeconfig` values with. */
export const KUBECONFIG_JOIN = "\n";

/** The kubeconfig files `--kubeconfig` named (empty: the default ones). */
export function kubeconfigList(kubeconfig: string | undefined): string[] {
  return kubeconfig ? kubeconfig.split(KUBECONFIG_JOIN).filter(Boolean) : [];
}

/** True when the flags ask for a fleet run. */
export function isFleet(opts: FleetFlags): boolean {
  return opts.allContexts === true || (opts.contexts?.length ?? 0) > 0;
}

/**
 * Refuses what a fleet run cannot honour, and a repeated `--kubeconfig` outside one (a single run
 * reads one kubeconfig file, as before).
 */
export function checkFleetFlags(opts: FleetFlags & Record<string, unknown>, fleet: boolean): void {
  if (!fleet) {
    if (kubeconfigList(opts.kubeconfig).length > 1) {
      throw new ToolError(
        "--kubeconfig is given more than once: only a fleet run (--all-contexts or --contexts) merges several",
      );
    }
    for (const f of ["parallel", "clusterTimeout"] as const) {
      if (opts[f] !== undefined) {
        throw new ToolError(`--${flag(f)} is a fleet flag: add --all-contexts or --contexts`);
      }
    }
    return;
  }
  if (opts.snapshot !== undefined && opts.kubeconfig !== undefined) {
    throw new ToolError("--snapshot replays a collected bundle: it cannot be combined with --kubeconfig");
  }
  for (const f of ["context", "remoteKubeconfig", "remoteContext", "peer", "active"]) {
    if (opts[f] !== undefined && opts[f] !== false) {
      throw new ToolError(
        `--${flag(f)} cannot be combined with ${
          opts.allContexts ? "--all-contexts" : "--contexts"
        }: a fleet run reads every selected context and pairs the peerings itself`,
      );
    }
  }
}

function flag(k: string): string {
  return k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** `--parallel`: a whole number from 1 to 64. */
export function parallelOption(v: string | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 64) {
    throw new ToolError(`invalid --parallel "${v}": a whole number from 1 to 64`);
  }
  return n;
}

/** What the caller hands over besides the flags. */
export interface FleetRun {
  options: RunOptions;
  requestTimeoutMs: number;
  runTimeoutMs: number;
  timeout: string;
  catalog?: readonly CheckDef[];
  format: "text" | "json" | "yaml" | "markdown" | "junit" | "html";
  outputFile?: string;
  color?: boolean;
  verbose?: boolean;
  quiet?: boolean;
}

/** A fleet run the flags describe, ready to run (again: `watch` runs it every round). */
export async function fleetRunner(
  opts: FleetFlags,
  run: Pick<FleetRun, "options" | "requestTimeoutMs" | "catalog" | "quiet">,
  clock?: FleetClock,
  /** Fleet rounds: each cluster's source opened once and kept current by Kubernetes watches. */
  watched = false,
): Promise<{ parallel: number; once: () => Promise<FleetReport>; close: () => Promise<void> }> {
  const [{ runFleet, DEFAULT_PARALLEL, DEFAULT_CLUSTER_TIMEOUT }, { createLiveSource }, { createProbeHub }, {
    cliInvocation,
  }] = await Promise.all([
    import("../multicluster/run.ts"),
    import("../kube/live/source.ts"),
    import("../probes/live_hub.ts"),
    import("../report/invocation.ts"),
  ]);
  const parallel = parallelOption(opts.parallel, DEFAULT_PARALLEL);
  const clusterTimeoutLabel = opts.clusterTimeout ?? DEFAULT_CLUSTER_TIMEOUT;
  const clusterTimeoutMs = durationOption("--cluster-timeout", clusterTimeoutLabel, true);
  const kubeconfigs = kubeconfigList(opts.kubeconfig);
  // Offline: the bundle's clusters are the contexts (each its own endpoint: never grouped).
  const bundle = opts.snapshot === undefined ? null : await (async () => {
    const [{ openSnapshotClusters }, { snapshotFleet }] = await Promise.all([
      import("../kube/snapshot.ts"),
      import("../multicluster/snapshot.ts"),
    ]);
    return snapshotFleet(await openSnapshotClusters(opts.snapshot!));
  })();
  const live = (context: string) =>
    createLiveSource({
      ...(kubeconfigs.length === 1 ? { kubeconfig: kubeconfigs[0] } : {}),
      ...(kubeconfigs.length > 1 ? { kubeconfigs } : {}),
      context,
      requestTimeoutMs: run.requestTimeoutMs,
    });
  // Rounds: after the first, a cluster's lists come from its watches (kube/watch_cache.ts); one
  // that failed its read was closed by the run and is opened afresh the next round.
  const kept = new Map<string, Promise<ClusterSource>>();
  const watchedSource = (context: string): Promise<ClusterSource> => {
    let p = kept.get(context);
    if (!p) {
      p = (async () => {
        const [{ openWatchableSource }, { withWatchCache }] = await Promise.all([
          import("../kube/live/watch.ts"),
          import("../kube/watch_cache.ts"),
        ]);
        const cached = withWatchCache(
          await openWatchableSource({
            ...(kubeconfigs.length === 1 ? { kubeconfig: kubeconfigs[0] } : {}),
            ...(kubeconfigs.length > 1 ? { kubeconfigs } : {}),
            context,
            requestTimeoutMs: run.requestTimeoutMs,
          }),
        );
        return {
          ...cached,
          close: async () => {
            kept.delete(context);
            await cached.close();
          },
        };
      })();
      kept.set(context, p);
      p.catch(() => kept.delete(context));
    }
    return p;
  };
  const close = async () => {
    const all = [...kept.values()];
    kept.clear();
    for (const p of all) await p.then((s) => s.close(), () => {});
  };
  const once = () =>
    runFleet({
      ...(watched && !bundle ? { keepOpen: true } : {}),
      kubeconfigs,
      selection: { all: opts.allContexts === true, patterns: opts.contexts ?? [] },
      parallel,
      clusterTimeoutMs,
      clusterTimeoutLabel,
      ...(bundle ? { contexts: bundle.contexts } : {}),
      open: bundle ? bundle.open : watched ? watchedSource : live,
      options: run.options,
      ...(run.catalog ? { catalog: run.catalog } : {}),
      probes: (sources) =>
        createProbeHub({
          sources,
          networkProbes: run.options.networkProbes,
          preciseUdp: run.options.preciseUdp,
          sampleIntervalMs: run.options.sampleIntervalMs,
        }),
      invocation: cliInvocation({ kubeconfig: kubeconfigs.join(":") || undefined }),
      onNotice: run.quiet ? undefined : (line) => writeErr(`flyingfish: ${line}\n`),
      ...(clock ? { clock } : {}),
    });
  return { parallel, once, close };
}

/** Runs the fleet and prints (or writes) its report; returns the fleet's exit code. */
export async function runFleetCommand(opts: FleetFlags, run: FleetRun): Promise<number> {
  const file = run.outputFile && run.outputFile !== "-" ? run.outputFile : null;
  if (file) {
    const { requireWrite } = await import("./report_file.ts");
    requireWrite(file);
  }
  // -v: where the wall time went, on stderr once the report is out.
  const { fleetClock, timingLines } = await import("../multicluster/timings.ts");
  const clock = fleetClock(run.verbose === true);
  const [{ renderFleet, fleetSummaryLines }, runner] = await Promise.all([
    import("../render/fleet.ts"),
    fleetRunner(opts, run, clock),
  ]);
  const report = await withDeadline(run.runTimeoutMs, run.timeout, async () => {
    if (!run.quiet) {
      writeErr(`flyingfish: fleet run: reading ${describeSelection(opts)} (${runner.parallel} at a time)\n`);
    }
    return await runner.once();
  });
  const color = file ? false : useColor(run.color);
  const width = !file && stdoutIsTty() ? terminalColumns() : undefined;
  const text = renderFleet(report, run.format, {
    color,
    verbose: run.verbose === true,
    quiet: run.quiet === true,
    width,
  });
  clock.mark("rendered");
  if (file) {
    const { writeReportFile } = await import("./report_file.ts");
    await writeReportFile(file, text);
    writeErr(`flyingfish: wrote ${run.format} fleet report to ${file}\n`);
    if (!run.quiet) {
      writeErr(
        fleetSummaryLines(report).filter((l) => l.startsWith("FLEET") || l.startsWith("  ")).join("\n") +
          "\n",
      );
    }
  } else writeOut(text);
  for (const l of timingLines(clock.marks)) writeErr(`flyingfish: fleet timing: ${l}\n`);
  if (report.exitCode === 3) {
    const errors = report.clusters.filter((c) => c.error).map((c) => `${c.name}: ${c.error}`);
    writeErr(
      `flyingfish: no edge or cluster of the fleet could be judged${
        errors.length ? ` (${errors.join("; ")})` : ""
      }\n`,
    );
  }
  return report.exitCode;
}

/** What `watch --all-contexts` runs with. */
export interface FleetWatch {
  options: RunOptions;
  requestTimeoutMs: number;
  intervalMs: number;
  /** `--wait`: with `--until`, give up after it (exit 1); alone, watch this long (null: until stopped). */
  waitMs: number | null;
  until?: "healthy" | "failure";
  output: "text" | "jsonl";
  signal: AbortSignal;
}

/**
 * Fleet rounds: the whole fleet run again every `--interval` (each round reads every cluster once),
 * printing each round's counts and every edge whose verdict changed — text lines, or JSON lines
 * (`fleet-round`, `edge-transition`, `end`). `--until healthy|failure` ends with 0 when a round
 * meets it, 1 past `--wait`; without it the last round's exit code.
 */
export async function runFleetWatch(opts: FleetFlags, w: FleetWatch): Promise<number> {
  const [{ edgeTransitions, roundMeets }, runner, { delay }] = await Promise.all([
    import("../multicluster/rounds.ts"),
    fleetRunner(
      opts,
      {
        options: w.options,
        requestTimeoutMs: w.requestTimeoutMs,
        quiet: w.output === "jsonl",
      },
      undefined,
      true,
    ),
    import("../time.ts"),
  ]);
  const started = Date.now();
  const line = (o: Record<string, unknown>) => writeOut(JSON.stringify(o) + "\n");
  try {
    return await rounds();
  } finally {
    await runner.close();
  }
  async function rounds(): Promise<number> {
    const end = (reason: string, code: number) => {
      if (w.output === "jsonl") line({ event: "end", at: new Date().toISOString(), reason, exitCode: code });
      else writeErr(`flyingfish: watch ended (${reason}), exit ${code}\n`);
      return code;
    };
    let prev: FleetReport | null = null;
    for (let round = 1;; round++) {
      const t0 = Date.now();
      const report: FleetReport = await runner.once();
      const at = new Date().toISOString();
      const s = report.summary.byVerdict;
      if (w.output === "jsonl") {
        line({
          event: "fleet-round",
          at,
          round,
          exitCode: report.exitCode,
          summary: report.summary,
          edges: Object.fromEntries(Object.values(report.edges).map((e) => [e.id, e.verdict])),
          unreadable: report.clusters.filter((c) => c.error).map((c) => ({
            cluster: c.name,
            error: c.error,
          })),
        });
      } else {
        writeOut(
          `[${
            at.slice(11, 19)
          }] round ${round}: ${report.summary.clusters} clusters, ${report.summary.edges} edges — ` +
            `${s.pass} pass · ${s.warn} warn · ${s.fail} fail · ${s.unknown} unknown (exit ${report.exitCode})\n`,
        );
      }
      for (const t of edgeTransitions(prev, report)) {
        if (w.output === "jsonl") line({ event: "edge-transition", at, round, ...t });
        else {
          writeOut(
            `  ${t.edge}: ${t.from ?? "new"} → ${t.to ?? "gone"}${
              t.firstBroken ? ` (${t.firstBroken})` : ""
            }\n`,
          );
        }
      }
      prev = report;
      if (w.until && roundMeets(report, w.until)) return end(`until ${w.until}`, 0);
      if (w.signal.aborted) return end("stopped", report.exitCode);
      const elapsed = Date.now() - started;
      if (w.waitMs !== null && elapsed + Math.max(0, w.intervalMs - (Date.now() - t0)) >= w.waitMs) {
        return end("wait", w.until ? 1 : report.exitCode);
      }
      try {
        await delay(Math.max(0, w.intervalMs - (Date.now() - t0)), { signal: w.signal });
      } catch {
        return end("stopped", report.exitCode);
      }
    }
  }
}

function describeSelection(opts: FleetFlags): string {
  const pats = opts.contexts?.length ? `--contexts ${opts.contexts.join(",")}` : "";
  return [opts.allContexts ? "every context" : "", pats].filter(Boolean).join(", ");
}
