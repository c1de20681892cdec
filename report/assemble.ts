/**
 * The last step of a run: the engine's results (remediation as the checks' structured steps) become
 * the report's (each command printed as one shell line), every command naming the cluster it must
 * run against — from the `on` the check gave it and how the user named the clusters (report/targets.ts).
 */
import type { AlsoFailing, CheckResult, Diagnosis, Report, ReportDiagnosis, ReportResult } from "./model.ts";
import type { Invocation } from "./invocation.ts";
import type { RemediationStep } from "../checks/remediation.ts";
import { printSteps, type ReportStep } from "./remediation.ts";
import { type ClusterAccess, resolverFor, type Targeting, type Where, withKubeconfig } from "./targets.ts";

/** A report as the run builds it: engine results and diagnosis, remediation still as the checks' steps. */
export type ReportDraft = Omit<Report, "results" | "diagnosis" | "invocation"> & {
  results: readonly CheckResult[];
  diagnosis: (Diagnosis & { alsoFailing?: AlsoFailing[] }) | null;
};

/** How each cluster of the report is reached: its context and, from the invocation, its kubeconfig file. */
export function clusterAccess(clusters: Report["clusters"], invocation: Invocation | null): ClusterAccess[] {
  return clusters.map((c) => ({
    name: c.name,
    clusterId: c.clusterId,
    context: c.context,
    kubeconfig: invocation ? invocation.kubeconfig[c.role] : null,
  }));
}

/** What targeting needs from the draft and the invocation. */
export function targeting(
  draft: Pick<Report, "clusters" | "peers">,
  invocation: Invocation | null,
): Targeting {
  return {
    clusters: clusterAccess(draft.clusters, invocation),
    peers: draft.peers,
    invoked: invocation !== null,
  };
}

/** The steps of a result (or the diagnosis) observed at `where`, each command naming its cluster. */
export function remediationSteps(
  steps: readonly RemediationStep[],
  where: Where,
  t: Targeting,
): ReportStep[] {
  return printSteps(steps, resolverFor(where, t), t.invoked);
}

/**
 * The report document: remediation as steps naming their cluster, the invocation recorded; the
 * cheat sheet's commands (which name their context) get the kubeconfig the user named for it.
 */
export function assembleReport(draft: ReportDraft, invocation: Invocation | null): Report {
  const t = targeting(draft, invocation);
  const results: ReportResult[] = draft.results.map((r) => ({
    ...r,
    remediation: remediationSteps(r.remediation, r, t),
  }));
  const d = draft.diagnosis;
  const diagnosis: ReportDiagnosis | null = d
    ? { ...d, remediation: remediationSteps(d.remediation, d, t) }
    : null;
  const cheatSheet = invocation
    ? draft.cheatSheet.map((e) => (e.command ? { ...e, command: withKubeconfig(e.command, t.clusters) } : e))
    : draft.cheatSheet;
  return { ...draft, invocation, results, diagnosis, cheatSheet };
}
