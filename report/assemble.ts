/**
 * The last step of a run: the engine's results (remediation as free-form text) become the report's
 * (remediation as `{command, comment}` steps), and, when the caller says how the user named the
 * clusters, every kubectl/liqoctl/helm command names the cluster it must run against.
 */
import type {
  AlsoFailing,
  CheckResult,
  Diagnosis,
  PeerInfo,
  Report,
  ReportDiagnosis,
  ReportResult,
} from "./model.ts";
import type { Invocation } from "./invocation.ts";
import { parseRemediation, type RemediationStep } from "./remediation.ts";
import { type ClusterAccess, type CommandTarget, findCluster, retarget } from "./targets.ts";

/** A report as the run builds it: engine results and diagnosis, remediation still as text. */
export type ReportDraft = Omit<Report, "results" | "diagnosis" | "invocation"> & {
  results: readonly CheckResult[];
  diagnosis: (Diagnosis & { alsoFailing?: AlsoFailing[] }) | null;
};

/** Separator of the two cluster names of a result that compares both ends ("A ↔ B"). */
const BOTH = " ↔ ";

/** How each cluster of the report is reached, from the invocation (null: no rewriting). */
export function clusterAccess(
  clusters: Report["clusters"],
  invocation: Invocation | null,
): ClusterAccess[] | null {
  if (!invocation) return null;
  return clusters.filter((c) => c.context !== "").map((c) => ({
    name: c.name,
    clusterId: c.clusterId,
    context: c.context,
    kubeconfig: invocation.kubeconfig[c.role],
  }));
}

/** Which cluster a step's comment says its command runs on: `on milan-8d1f03:`, `on the provider`. */
function scopeOf(comment: string | null): { name: string } | { role: "provider" | "consumer" } | null {
  if (!comment) return null;
  const role = /\b(?:[Oo]n|[Ff]rom) the (provider|consumer)\b/.exec(comment);
  if (role) return { role: role[1] as "provider" | "consumer" };
  const named = /\b[Oo]n ([a-z0-9][a-z0-9.-]*[a-z0-9])(?=[,:]| \(|$)/.exec(comment);
  return named ? { name: named[1] } : null;
}

/** Where a result was observed and about which peer. */
interface Where {
  cluster: string;
  peer: string | null;
}

/** A cluster or peer named `name`: a known cluster, a peer only named, or nothing we know. */
function targetNamed(name: string, access: readonly ClusterAccess[], peers: readonly PeerInfo[]) {
  const c = findCluster(access, name);
  if (c) return { kind: "cluster", cluster: c } as CommandTarget;
  return peers.some((p) => p.clusterId === name) ? { kind: "named", name } as CommandTarget : null;
}

/** The cluster a step's command runs on, or null when it cannot be told. */
export function stepTarget(
  step: RemediationStep,
  where: Where,
  access: readonly ClusterAccess[],
  peers: readonly PeerInfo[],
): CommandTarget | null {
  const home = where.cluster.split(BOTH)[0];
  const scope = scopeOf(step.comment);
  if (scope && "role" in scope) {
    if (where.peer === null) return null;
    const role = peers.find((p) => p.cluster === home && p.clusterId === where.peer)?.role;
    if (role !== "Provider" && role !== "Consumer") return null;
    // The peer's role as seen from home: a Provider peer is the provider, home the consumer.
    const peerIs = role === "Provider" ? "provider" : "consumer";
    return targetNamed(scope.role === peerIs ? where.peer : home, access, peers);
  }
  if (scope) {
    const named = targetNamed(scope.name, access, peers);
    if (named) return named;
  }
  if (!where.cluster.includes(BOTH)) {
    const c = findCluster(access, where.cluster);
    return c ? { kind: "cluster", cluster: c } : null;
  }
  // A result comparing both ends: a tenant namespace says which cluster a command is about.
  const ns = /(?:^|\s)(?:-n|--namespace)(?:=|\s+)(\S+)/.exec(step.command ?? "")?.[1];
  const holders = [...new Set(peers.filter((p) => p.tenantNamespace === ns).map((p) => p.cluster))];
  const c = holders.length === 1 ? findCluster(access, holders[0]) : undefined;
  return c ? { kind: "cluster", cluster: c } : null;
}

/**
 * The remediation of a result (or the diagnosis) as steps; with `access`, each command names the
 * cluster it runs on.
 */
export function remediationSteps(
  text: string | null,
  where: Where,
  access: readonly ClusterAccess[] | null,
  peers: readonly PeerInfo[],
): RemediationStep[] {
  const steps = parseRemediation(text);
  if (!access) return steps;
  return steps.map((s) =>
    s.command === null
      ? s
      : { command: retarget(s.command, stepTarget(s, where, access, peers), access), comment: s.comment }
  );
}

/**
 * The report document: remediation as steps naming their cluster, the invocation recorded; the
 * cheat sheet's commands (which name their context) get the kubeconfig the user named for it.
 */
export function assembleReport(draft: ReportDraft, invocation: Invocation | null): Report {
  const access = clusterAccess(draft.clusters, invocation);
  const steps = (text: string | null, where: Where) => remediationSteps(text, where, access, draft.peers);
  const results: ReportResult[] = draft.results.map((r) => ({ ...r, remediation: steps(r.remediation, r) }));
  const d = draft.diagnosis;
  const diagnosis: ReportDiagnosis | null = d ? { ...d, remediation: steps(d.remediation, d) } : null;
  const cheatSheet = access
    ? draft.cheatSheet.map((e) => (e.command ? { ...e, command: retarget(e.command, null, access) } : e))
    : draft.cheatSheet;
  return { ...draft, invocation, results, diagnosis, cheatSheet };
}
