/**
 * A check's or judge's fix as the report of a run would print it, for tests: commands targeted
 * from a result observed on `cluster` about `peer`, with only the clusters named in `run` known
 * (no kubeconfig files: the observed cluster's commands stay bare).
 */
import type { RemediationStep } from "../../checks/remediation.ts";
import { printSteps, remediationText } from "../../report/remediation.ts";
import { resolverFor } from "../../report/targets.ts";

/** The fix as text, commands naming their cluster as a report of a run over `run` would. */
export function fixAsReported(
  steps: readonly RemediationStep[] | undefined,
  where: { cluster: string; peer: string | null },
  run: readonly string[] = [where.cluster],
): string {
  const clusters = run.map((name) => ({ name, clusterId: name, context: name, kubeconfig: null }));
  const resolve = resolverFor(where, { clusters, peers: [], invoked: false });
  return remediationText(printSteps(steps ?? [], resolve, false)) ?? "";
}
