/**
 * `flyingfish probe [matrix|udp|mtu|service|trace|all…]` and `flyingfish check --active`: flags →
 * active options → one engine run over the one catalog (the passive checks, then the active ones
 * over the SAME clients; diagnose/active.ts wires it) → one report. Also `probe --cleanup` (leftovers
 * by label) and `--print-images`.
 *
 * Signals: the first SIGINT/SIGTERM aborts the probes — the session cleans up within its own
 * budget and the report says what was removed; a second one exits 130 at once, printing the
 * `flyingfish probe --cleanup --run-id …` command that finishes the job. `--timeout` aborts the
 * probes the same way (the cleanup budget comes on top of it).
 */
import { ToolError } from "../errors.ts";
import type { RunOptions } from "../checks/types.ts";
import {
  type ActiveRun,
  type CleanupRecord,
  PROBE_CHECKS,
  PROBE_NAMES,
  type ProbeMode,
  type ProbeName,
} from "../active/mod.ts";
import type { Report } from "../report/model.ts";
import type { Invocation } from "../report/invocation.ts";
import type { ActiveClusters } from "../diagnose/open.ts";
import { RUN_DEFAULTS } from "../diagnose/defaults.ts";
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
export const DEFAULT_PROBE_TIMEOUT: string = RUN_DEFAULTS.probeTimeout;
/** Default of `--cleanup-timeout`: the cleanup's own budget. */
export const DEFAULT_CLEANUP_TIMEOUT: string = RUN_DEFAULTS.cleanupTimeout;

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
    const byId = PROBE_CHECKS.find((c) => c.id.toLowerCase() === w)?.active.probe;
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
  const { resolveImages, newRunId } = await import("../active/mod.ts");
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

/** What one active run prints: passive + probes (`check --active`) or probes only (`probe`). */
type Scope = "check" | "probe";

/**
 * The passive checks, then the active ones over the same views and clients, in one engine run;
 * prints the report. Returns the exit code (130 after an interruption, 3 after `--timeout`, once
 * the cleanup is done and the report printed).
 *
 * The session (active/session.ts) owns SIGINT/SIGTERM and --timeout once probe objects may exist:
 * a first signal stops the probes and cleans up, a second exits 130 printing the cleanup command.
 * The hard deadline leaves room for the cleanup budget on top of --timeout.
 */
export async function runActiveReport(
  scope: Scope,
  probes: readonly string[],
  opts: CheckCommandOptions & ProbeFlags,
  invocation: Invocation,
  more: {
    /** The passive checks (`--only`/`--skip`); default all of them. */
    catalog?: Parameters<typeof diagnoseAndPrint>[3]["catalog"];
    /** PROBE-* IDs skipped by `--skip`: listed as `skip` (disabled), like skipped passive checks. */
    skipped?: readonly string[];
    /** Opens the clusters (default: from the kubeconfig flags); the demo serves its own. */
    open?: (requestTimeoutMs: number) => Promise<ActiveClusters>;
  } = {},
): Promise<number> {
  const options: RunOptions = runOptionsFrom(opts);
  const { requestTimeoutMs, runTimeoutMs } = timeoutsFrom(opts);
  const hasRemote = Boolean(opts.remoteKubeconfig || opts.remoteContext);
  const requested = await activeOptionsFrom(opts, probes, hasRemote);
  const skippedNames = PROBE_CHECKS.filter((c) => more.skipped?.includes(c.id)).map((c) => c.active.probe);
  const active = { ...requested, probes: requested.probes.filter((p) => !skippedNames.includes(p)) };
  if (active.probes.length === 0) throw new ToolError("every probe is skipped (--skip): nothing to probe");
  const [wiring, { openActiveClusters, closeActiveClusters }] = await Promise.all([
    import("../diagnose/active.ts"),
    import("../diagnose/open.ts"),
  ]);
  const leftOut = (error: string, local: string) =>
    console.error(`flyingfish: ${error} — probing from ${local} alone`);
  const open = more.open ?? ((ms: number) => openActiveClusters(opts, ms, leftOut));
  // What to run to remove a kept or stuck run: every cluster this run may have written to.
  const hint = wiring.cleanupCommandFor(active.runId, opts, hasRemote);
  const started = Date.now();
  const hardMs = Math.min(runTimeoutMs + active.cleanupTimeoutMs + 5_000, NO_TIMEOUT_MS);
  let phase: ActiveRun | null = null;
  // The cleanup budget on top of --timeout is for a session that may have created objects: until
  // the first active check starts it (a hung API server during the passive run), --timeout is all.
  let sessionStarted = false;
  // Once the run has expired nothing may start creating objects over clients that are closed.
  let expired = false;
  const report = await withDeadline(hardMs, opts.timeout, async (onExpiry) => {
    const clusters = await open(requestTimeoutMs);
    const close = () => closeActiveClusters(clusters);
    onExpiry(() => {
      expired = true;
      return close();
    });
    try {
      const opened = await wiring.openActivePhase({
        clusters,
        flags: opts,
        options: active,
        timeoutLabel: `--timeout ${opts.timeout}`,
        runTimeoutMs: () =>
          runTimeoutMs >= NO_TIMEOUT_MS ? undefined : Math.max(1, runTimeoutMs - (Date.now() - started)),
        // console.error: on a terminal it first erases the passive run's progress line.
        onProgress: opts.quiet ? undefined : (l: string) => console.error(`flyingfish: ${l}`),
        write: (l: string) => console.error(`flyingfish: ${l}`),
      });
      const run: ActiveRun = {
        ...opened,
        outcome: (id, views) => {
          if (expired && !sessionStarted) {
            return Promise.resolve({
              status: "unknown",
              summary: `not probed: --timeout ${opts.timeout} was reached`,
            });
          }
          sessionStarted = true;
          return opened.outcome(id, views);
        },
      };
      phase = run;
      const report = await diagnoseAndPrint(
        clusters.local.source,
        clusters.remote ? { source: clusters.remote.source, error: clusters.remote.error } : null,
        options,
        {
          ...opts,
          catalog: wiring.activeCatalog(more.catalog, active.probes, more.skipped),
          invocation,
          activePhase: run,
          select: (r: Report) => {
            // A tool error of the session (a refused pre-flight) is the run's error: nothing printed.
            const error = run.error();
            if (error) throw error;
            // A run the session stopped says so, and carries the process's exit code.
            const stopped = wiring.withStop(r, run.stoppedBy(), `--timeout ${opts.timeout}`);
            return scope === "probe" ? wiring.probeOnly(stopped) : stopped;
          },
        },
      );
      printCleanupHint(report, hint, opts.quiet === true);
      const d = report.diagnosis;
      const shown = report.results.some((r) =>
        r.id === d?.id && r.cluster === d.cluster && r.peer === d.peer
      );
      if (scope === "probe" && d && d.layer !== "probe" && !shown && !opts.quiet) {
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
  }, { ms: runTimeoutMs, committed: () => sessionStarted });
  const stoppedBy = (phase as ActiveRun | null)?.stoppedBy() ?? null;
  if (stoppedBy === "timeout") {
    writeErr(
      `flyingfish: the run did not finish within --timeout ${opts.timeout}: the probes were stopped and ` +
        `their objects removed (see the report); raise --timeout (0 = no limit)\n`,
    );
  }
  return report.exitCode;
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
  const [{ cleanupLeftovers, parseRunId }, { openActiveClusters, closeActiveClusters }, { probeTargets }] =
    await Promise.all([
      import("../active/mod.ts"),
      import("../diagnose/open.ts"),
      import("../diagnose/active.ts"),
    ]);
  if (opts.runId !== undefined && opts.all) {
    throw new ToolError("--cleanup takes --run-id ID or --all, not both");
  }
  const runId = opts.runId === undefined ? undefined : parseRunId(opts.runId);
  return await withSourcesDeadline(opts, runTimeoutMs, async () => {
    const clusters = await openActiveClusters(
      opts,
      requestTimeoutMs,
      (error, local) => console.error(`flyingfish: ${error} — probing from ${local} alone`),
    );
    try {
      const t = probeTargets(clusters, opts);
      const records = await cleanupLeftovers(t.remote ? [t.local, t.remote] : [t.local], {
        runId,
        all: opts.all === true,
        budgetMs,
      });
      writeOut(cleanupText(records, opts.output));
      return records.some((r) => r.status === "stuck" || r.status === "failed") ? 1 : 0;
    } finally {
      await closeActiveClusters(clusters);
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
    const { resolveImages, printImages } = await import("../active/mod.ts");
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
