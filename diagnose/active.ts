/**
 * The passive + active composition of an active run (`check --active`, `flyingfish probe`): the
 * catalog the engine runs (the passive checks, the selected active ones, the skipped ones listed as
 * skipped), the active phase over the clients the passive checks read with (ONE connection per
 * cluster), what `probe` shows of the report, and the exit code of a run the session stopped early.
 * The engine runs everything (checks/engine.ts); this module only wires.
 */
import type { CheckDef } from "../checks/types.ts";
import { PASSIVE_CHECKS } from "../checks/catalog.ts";
import { disabledCheck } from "../checks/ids.ts";
import {
  type ActiveOptions,
  type ActiveRun,
  cleanupCommand,
  clusterFlags,
  createActivePhase,
  PROBE_CHECKS,
  type ProbeTarget,
  probeTarget,
  type StopCause,
} from "../active/mod.ts";
import type { Report } from "../report/model.ts";
import { exitCodeOf } from "../checks/diagnosis.ts";
import type { ActiveClusters, ClusterFlags } from "./open.ts";

/**
 * The catalog of an active run: `passive` (as `--only/--skip` selected it), the active checks of
 * `options.probes`, and those `--skip` named, listed as skipped (disabled) like skipped passive checks.
 */
export function activeCatalog(
  passive: readonly CheckDef[] | undefined,
  probes: ActiveOptions["probes"],
  skipped: readonly string[] = [],
): CheckDef[] {
  return [
    ...passive ?? PASSIVE_CHECKS,
    ...PROBE_CHECKS.filter((c) => probes.includes(c.active.probe)),
    ...PROBE_CHECKS.filter((c) => skipped.includes(c.id)).map((c) =>
      disabledCheck(c, `skipped (--skip ${c.id})`)
    ),
  ];
}

/** The probe targets over the clients already open (the same connections the passive checks use). */
export function probeTargets(
  clusters: ActiveClusters,
  flags: ClusterFlags,
): { local: ProbeTarget; remote: ProbeTarget | null } {
  const local = probeTarget({
    side: "local",
    name: clusters.local.source.endpoint.context,
    client: clusters.local.client,
    exec: (ns, pod, c, cmd) => clusters.local.source.exec(ns, pod, c, cmd),
    flags: clusterFlags("local", flags.kubeconfig, flags.context),
  });
  const r = clusters.remote;
  const remote = r?.source && r.client
    ? probeTarget({
      side: "remote",
      name: r.source.endpoint.context,
      client: r.client,
      exec: (ns, pod, c, cmd) => r.source!.exec(ns, pod, c, cmd),
      flags: clusterFlags("remote", flags.remoteKubeconfig, flags.remoteContext),
    })
    : null;
  return { local, remote };
}

/** What opens the active phase of a run. */
export interface ActivePhaseRequest {
  clusters: ActiveClusters;
  flags: ClusterFlags;
  options: ActiveOptions;
  /** How the run's time limit is named in results ("--timeout 2m"). */
  timeoutLabel: string;
  /** What is left of the run's time when the probes start (undefined: no limit). */
  runTimeoutMs: () => number | undefined;
  /** Progress lines (stderr). */
  onProgress?: (line: string) => void;
  /** Where the second-signal line goes. */
  write?: (line: string) => void;
}

/** Opens the active phase over the run's clients (nothing is created before a probe runs). */
export async function openActivePhase(req: ActivePhaseRequest): Promise<ActiveRun> {
  const targets = probeTargets(req.clusters, req.flags);
  const signal = new AbortController().signal;
  const control = {
    signal,
    onProgress: req.onProgress,
    write: req.write,
    get runTimeoutMs() {
      return req.runTimeoutMs();
    },
  };
  return await createActivePhase({
    options: req.options,
    local: targets.local,
    remote: targets.remote,
    remoteError: req.clusters.remote?.error,
    control,
    timeoutLabel: req.timeoutLabel,
  });
}

/**
 * The `flyingfish probe --cleanup --run-id …` command that removes what a run may have left, on every
 * cluster it may have written to.
 */
export function cleanupCommandFor(runId: string, flags: ClusterFlags, hasRemote: boolean): string {
  return cleanupCommand(runId, [
    { flags: clusterFlags("local", flags.kubeconfig, flags.context) },
    ...(hasRemote
      ? [{ flags: clusterFlags("remote", flags.remoteKubeconfig ?? flags.kubeconfig, flags.remoteContext) }]
      : []),
  ]);
}

/**
 * `probe`'s report: only the active results — and the passive ones an active input decided (FAB-03
 * when the matrix shows a node's broken Geneve path: the probe's own finding, under the check it
 * speaks for). A passive result the probes merely confirmed or annotated stays out (`check --active`
 * shows it). The diagnosis stays the whole run's: when a passive check failed it comes first
 * (probes on a broken peering say little), and the exit code counts it.
 */
export function probeOnly(report: Report): Report {
  const results = report.results.filter((r) => r.layer === "probe" || r.decidedBy !== undefined);
  const summary = { pass: 0, warn: 0, fail: 0, skip: 0, unknown: 0, total: results.length };
  for (const r of results) summary[r.status]++;
  const passiveBroken = report.diagnosis !== null && report.diagnosis.layer !== "probe";
  const exitCode = passiveBroken ? 2 : exitCodeOf(results);
  // A stopped run keeps the process's exit code (130, 3), like a tool error.
  const keep = report.exitCode === 3 || report.stopped !== undefined;
  return { ...report, results, summary, exitCode: keep ? report.exitCode : exitCode };
}

/** The process's exit code of an active run: 130 after a signal, 3 after the run's timeout. */
export function activeExitCode(report: Report, stoppedBy: StopCause | null): number {
  if (stoppedBy === "SIGINT" || stoppedBy === "SIGTERM") return 130;
  if (stoppedBy === "timeout") return 3;
  return report.exitCode;
}

/**
 * The report of a run the session stopped early says so, in every format: `stopped` names the cause
 * and what became of the probe objects, and the document's exit code is the process's — never a
 * "no failure found, exit 0" for a run that did not finish.
 */
export function withStop(report: Report, stoppedBy: StopCause | null, timeoutLabel: string): Report {
  if (stoppedBy === null) return report;
  const cause = stoppedBy === "timeout" ? `${timeoutLabel} was reached` : `interrupted by ${stoppedBy}`;
  const left = (report.active?.cleanup ?? []).filter((c) => c.status !== "removed");
  const objects = left.length
    ? `what it created is left in ${left.map((c) => `${c.cluster}/${c.namespace} (${c.status})`).join(", ")}`
    : "what it created was removed";
  return {
    ...report,
    stopped: {
      by: stoppedBy,
      message: `the run did not finish (${cause}): the probes were stopped and ${objects}; ` +
        `the results are what was measured so far, not a verdict`,
    },
    exitCode: activeExitCode(report, stoppedBy),
  };
}
