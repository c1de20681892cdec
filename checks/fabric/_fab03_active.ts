/**
 * FAB-03's active half: the reachability matrix (PROBE-MATRIX, an input of FAB-03) read for one
 * question — does each node's Geneve path to its gateway carry traffic? A node whose row is red
 * across the peering (from it nothing reaches the peer) while its own cluster's control grid is
 * green for it has a broken Geneve/fabric path, whatever the NetworkPolicies say: FAB-03 then fails,
 * naming the node. Pure: the passive outcome and the matrix's reading in, the outcome out.
 */
import type { Outcome } from "../types.ts";
import { fix, kubectl } from "../remediation.ts";
import type { GenevePathReading } from "../facts.ts";
import { INTERNAL_NODE_NAME_LABEL } from "../../liqo/names.ts";

/** The active check FAB-03 takes as an input. */
export const MATRIX_ID = "PROBE-MATRIX";

/** "a", "a and b", "a, b and c". */
function listed(names: readonly string[]): string {
  return names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/**
 * FAB-03's passive outcome on one end of the probed peering amended by what the matrix saw there
 * (`reading`). A broken node → `fail`, whatever the passive half said, the summary naming the
 * node(s), `decidedBy` PROBE-MATRIX; otherwise the status is kept and the evidence says what the
 * matrix saw. A skipped FAB-03 (no gateway) is left alone.
 */
export function amendFab03(
  result: Outcome,
  reading: GenevePathReading,
  liqoNamespace: string,
): Outcome {
  if (result.status === "skip" || reading.grids === 0) return result;
  const { nodes, allRed } = reading;
  const peer = reading.peerName;
  const end = { cluster: reading.cluster, liqoNamespace };
  const evidence = result.evidence ?? [];
  const lines: string[] = [];
  const broken = nodes.filter((n) => n.kind === "broken");
  const reached = nodes.filter((n) => n.kind === "reached");
  for (const n of broken) {
    lines.push(
      `active: ${n.node} → ${peer}: row red, all ${n.cells} cells failed (${n.grid}); ` +
        (n.control
          ? `${end.cluster}'s control grid is green for ${n.node}, so not its CNI`
          : `no control grid measured ${n.node}`) +
        (n.bothWays ? `; red both ways: nothing in ${peer} reaches ${n.node} either (${n.bothWays})` : ""),
    );
  }
  for (const n of nodes) {
    if (n.kind === "cni") {
      lines.push(
        `active: ${n.node} reaches nothing in ${peer} (${n.grid}) but is red in ${end.cluster}'s control grid ` +
          `too: its own pod network (CNI), not its Geneve path`,
      );
    } else if (n.kind === "unconfirmed") {
      lines.push(
        `active: ${n.node}'s Geneve path could not be confirmed: no cell of its row answered (${n.grid}: ` +
          `${n.anyRed ? "red mixed with unmeasured cells" : "not measured"})`,
      );
    } else if (n.kind === "reached" && n.flakyOnly) {
      lines.push(`active: ${n.node} reached ${peer} only on a retry (flaky cells, PROBE-MATRIX)`);
    }
  }
  if (broken.length === 0 && nodes.length > 0 && reached.length === nodes.length) {
    lines.push(
      `active: every probed node of ${end.cluster} reached ${peer} through its Geneve path (PROBE-MATRIX)`,
    );
  } else if (broken.length > 0 && reached.length > 0) {
    lines.push(
      `active: ${
        reached.length === 1 ? "the other probed node" : "the other probed nodes"
      } of ${end.cluster} ` +
        `(${listed(reached.map((n) => n.node))}) reached ${peer}: not the tunnel`,
    );
  } else if (allRed) {
    lines.push(
      `active: nothing from ${end.cluster} reaches ${peer} (PROBE-MATRIX everything red): the tunnel or a ` +
        `gateway${result.status === "pass" ? ", not one node's Geneve path" : " — or the policies above"}`,
    );
  }

  if (broken.length === 0) {
    // The probe proves the path works now, not that the policies are right: a passive warn or
    // unknown about them stays, with what the matrix saw as evidence.
    return { ...result, evidence: [...evidence, ...lines] };
  }
  const names = listed(broken.map((n) => n.node));
  const bothWays = broken.every((n) => n.bothWays !== null);
  const summary = `active: from ${names} nothing reaches ${peer} through the Geneve tunnel to the gateway ` +
    `(PROBE-MATRIX row red${bothWays ? ", red both ways" : ""})`;
  const fixes = broken.flatMap((n) =>
    fix(
      `${n.node} reaches nothing in ${peer}: its Geneve tunnel to the gateway — the InternalNode ` +
        `(status.nodeIP), the fabric pod of that node, its GeneveTunnels`,
      kubectl("local", "get", "internalnode", n.node, "-o", "yaml"),
      kubectl(
        "local",
        ...["-n", end.liqoNamespace, "get", "pods", "-l", "app.kubernetes.io/name=fabric", "-o", "wide"],
        ...["--field-selector", `spec.nodeName=${n.node}`],
      ),
      kubectl("local", "get", "genevetunnels", "-A", "-l", `${INTERNAL_NODE_NAME_LABEL}=${n.node}`),
    )
  );
  return {
    ...result,
    status: "fail",
    summary,
    evidence: [...evidence, `passive: ${result.summary}`, ...lines],
    remediation: [...result.remediation ?? [], ...fixes],
    skipKind: undefined,
    decidedBy: MATRIX_ID,
  };
}
