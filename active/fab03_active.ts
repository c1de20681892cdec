/**
 * FAB-03's active half: the reachability matrix (PROBE-MATRIX) read for one question — does each
 * node's Geneve path to its gateway carry traffic? A node whose row is red across the peering (from
 * it nothing reaches the peer) while its own cluster's control grid is green for it has a broken
 * Geneve/fabric path, whatever the NetworkPolicies say: FAB-03 then fails, naming the node. Pure: the
 * passive results and the judged matrix in, the same results out, FAB-03 amended in place (one
 * FAB-03 per cluster and peer, never a second one).
 */
import { fix, kubectl } from "../checks/remediation.ts";
import type { CheckResult } from "../checks/types.ts";
import type { ActiveMatrix, MatrixCell, MatrixGrid } from "./model.ts";
import { cellFlaky, cellRed, cellUnknown, gridPattern } from "./matrix/judge.ts";

/** The passive check whose active half this is. */
export const FAB03_ID = "FAB-03";

/** One end of the probed peering, as the passive results name it. */
export interface FabricEnd {
  /** The cluster's report name (a FAB-03 result's `cluster`, the grids' fromCluster/toCluster). */
  cluster: string;
  /** The other end's cluster ID as this cluster's results name it (a FAB-03 result's `peer`). */
  peer: string;
  /** Namespace Liqo runs in there (the fabric DaemonSet's pods). */
  liqoNamespace: string;
}

/** What the matrix says of one node of a cluster's outgoing grid. */
type NodeVerdict =
  /** Its row is red while its control grid is not: its Geneve path to the gateway. */
  | { kind: "broken"; node: string; cells: number; grid: string; bothWays: string | null; control: boolean }
  /** Its row is red, and so is it in its own cluster's control grid: its CNI, not the Geneve path. */
  | { kind: "cni"; node: string; grid: string }
  /** At least one cell answered: its Geneve path carried traffic (flaky: only on the retry). */
  | { kind: "reached"; node: string; flakyOnly: boolean }
  /** No cell answered and the row is not all red (not measured, or red mixed with unmeasured). */
  | { kind: "unconfirmed"; node: string; grid: string; anyRed: boolean };

/** The amended FAB-03 of one cluster, and whether the active half failed it. */
export interface Fab03Active {
  result: CheckResult;
  /** The matrix showed a node whose Geneve path is broken: FAB-03 is `fail` because of it. */
  failedByActive: boolean;
}

/** Every passive result, FAB-03 amended in place, and the FAB-03 results the active half failed. */
export interface Fab03Amendment {
  results: CheckResult[];
  failedByActive: CheckResult[];
}

/** Nodes of `cluster` red in its own control grid (rows, columns, or all of it), as the judge reads it. */
function controlRed(
  grids: readonly MatrixGrid[],
  cluster: string,
): { red: Set<string>; measured: Set<string> } {
  const red = new Set<string>();
  const measured = new Set<string>();
  for (const g of grids.filter((g) => g.control && g.fromCluster === cluster)) {
    const p = gridPattern(g);
    g.rows.forEach((n) => measured.add(n));
    for (const n of [...p.redRows, ...p.redCols]) red.add(n);
    if (p.allRed) g.rows.forEach((n) => red.add(n));
  }
  return { red, measured };
}

function cellsOf(g: MatrixGrid, r: number): MatrixCell[] {
  return g.cols.map((_, c) => g.cells[r]?.[c] ?? { tcp: "unknown", udp: "unknown", detail: "not measured" });
}

/** Reads every row of the cluster's outgoing cross grids. */
function verdicts(
  matrix: ActiveMatrix,
  end: FabricEnd,
): { out: MatrixGrid[]; nodes: NodeVerdict[]; allRed: boolean } {
  const out = matrix.grids.filter((g) =>
    !g.control && g.fromCluster === end.cluster && g.toCluster !== end.cluster
  );
  const back = matrix.grids.filter((g) =>
    !g.control && g.toCluster === end.cluster && g.fromCluster !== end.cluster
  );
  const control = controlRed(matrix.grids, end.cluster);
  const redColsBack = new Map(back.map((g) => [g, gridPattern(g).redCols]));
  const nodes: NodeVerdict[] = [];
  let allRed = false;
  for (const g of out) {
    const p = gridPattern(g);
    // Everything red is the tunnel or a gateway (the judge's reading), not one node's Geneve path.
    if (p.allRed) {
      allRed = true;
      continue;
    }
    g.rows.forEach((node, r) => {
      const cells = cellsOf(g, r);
      if (p.redRows.includes(node)) {
        if (control.red.has(node)) {
          nodes.push({ kind: "cni", node, grid: g.title });
          return;
        }
        const both = back.find((b) => redColsBack.get(b)!.includes(node));
        nodes.push({
          kind: "broken",
          node,
          cells: cells.length,
          grid: g.title,
          bothWays: both?.title ?? null,
          control: control.measured.has(node),
        });
        return;
      }
      const ok = cells.filter((c) => !cellRed(c) && !cellFlaky(c) && !cellUnknown(c)).length;
      const flaky = cells.filter(cellFlaky).length;
      if (ok + flaky > 0) nodes.push({ kind: "reached", node, flakyOnly: ok === 0 });
      else nodes.push({ kind: "unconfirmed", node, grid: g.title, anyRed: cells.some(cellRed) });
    });
  }
  return { out, nodes, allRed };
}

/** "a", "a and b", "a, b and c". */
function listed(names: readonly string[]): string {
  return names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/**
 * FAB-03 of one cluster (`end`) amended by the matrix. A broken node → `fail`, whatever the passive
 * half said, the summary naming the node(s); otherwise the status is kept and the evidence says what
 * the matrix saw. A FAB-03 that did not run (skip: no gateway, or `--skip FAB-03`) is left alone.
 */
export function activeFab03(result: CheckResult, matrix: ActiveMatrix, end: FabricEnd): Fab03Active {
  const same = { result, failedByActive: false };
  if (result.id !== FAB03_ID || result.status === "skip") return same;
  const { out, nodes, allRed } = verdicts(matrix, end);
  if (out.length === 0) return same;
  const peer = out[0].toCluster;
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
    return { result: { ...result, evidence: [...result.evidence, ...lines] }, failedByActive: false };
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
      kubectl("local", "get", "genevetunnels", "-A", "-l", `networking.liqo.io/internal-node-name=${n.node}`),
    )
  );
  return {
    result: {
      ...result,
      status: "fail",
      summary,
      evidence: [...result.evidence, `passive: ${result.summary}`, ...lines],
      remediation: [...result.remediation, ...fixes],
      skipKind: null,
    },
    failedByActive: true,
  };
}

/**
 * Every passive result with each FAB-03 of the probed peering (one per end in `ends`, matched by
 * cluster and peer) amended by the matrix; the rest untouched, in the same order.
 */
export function amendFab03(
  passive: readonly CheckResult[],
  matrix: ActiveMatrix,
  ends: readonly FabricEnd[],
): Fab03Amendment {
  const failedByActive: CheckResult[] = [];
  const results = passive.map((r) => {
    const end = r.id === FAB03_ID
      ? ends.find((e) => e.cluster === r.cluster && e.peer === r.peer)
      : undefined;
    if (!end) return r;
    const a = activeFab03(r, matrix, end);
    if (a.failedByActive) failedByActive.push(a.result);
    return a.result;
  });
  return { results, failedByActive };
}
