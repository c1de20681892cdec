/**
 * PROBE-MATRIX judge: reads the reachability grids (every source node × every destination node,
 * TCP connect + UDP echo) by the reading rules and turns them into an outcome naming the node(s).
 * Pure: the grids come from active/matrix.ts.
 *
 * Reading rules (printed with the result, {@link MATRIX_RULES}): a whole row red → that source node's
 * Geneve/fabric path to its gateway; a whole column red → that destination node; everything red →
 * the tunnel or a gateway; one cell → that pair. A red control grid (same cluster) → that cluster's
 * CNI, not Liqo; a node red in its control grid too is read as its own pod network, not the fabric;
 * red on one protocol only (the other crossing the same cells) → a filter on that protocol, since
 * the tunnel, the gateways and the Geneve paths carry both.
 */
import {
  fix,
  type FixPart,
  flyingfish,
  kubectl,
  kubectlIn,
  pipe,
  type RemediationCommand,
  shell,
  step,
  unique,
} from "../../checks/remediation.ts";
import type { Outcome, Status } from "../../checks/types.ts";
import type { GenevePathReading, NodePathVerdict } from "../../checks/facts.ts";
import type { ActiveMatrix, MatrixCell, MatrixGrid, Side } from "../model.ts";

/** The reading rules, printed with the matrix. */
export const MATRIX_RULES: readonly string[] = [
  "whole row red → that source node's Geneve/fabric path to its gateway",
  "whole column red → that destination node (its fabric, CNI or a policy on it)",
  "everything red → the tunnel or a gateway",
  "one cell red → that pair of nodes",
  "control grid (same cluster) red → that cluster's CNI, not Liqo",
  "red on one protocol only (UDP red, TCP green, or the reverse) → a filter on that protocol (NetworkPolicy, firewall or NAT rule), not the tunnel, the gateways or the Geneve paths: the other protocol crosses them",
  "~ flaky: failed once, passed on the one retry (never counted as ok)",
];

/** The detail of a cell the probe had no time left to measure (its row exec never ran or was cut). */
export const NOT_REACHED = "not reached: the probe ran out of time";

/** Cells named in the summary when the probe ran out of time; the rest are counted. */
const NOT_REACHED_SHOWN = 5;

/** Red cells listed one by one in the evidence; the rest are counted. */
const CELLS_SHOWN = 20;

/** How to address one cluster of a grid in commands and text. */
export interface MatrixClusterRef {
  side: Side;
  /** Display name (the grid's fromCluster/toCluster). */
  name: string;
  /** Namespace Liqo runs in there ("liqo" when unknown). */
  liqoNamespace: string;
}

/** A grid with what its rows and columns are. */
export interface JudgedGrid {
  grid: MatrixGrid;
  from: MatrixClusterRef;
  to: MatrixClusterRef;
  /** Columns are pods, not nodes (offload mode without the remote kubeconfig). */
  colsArePods?: boolean;
  /** Why (e.g. "columns are offloaded pods: …"), printed once in the evidence and the reading. */
  note?: string | null;
}

/** True when a cell failed one of its protocols. */
export function cellRed(c: MatrixCell): boolean {
  return c.tcp === "fail" || c.udp === "fail";
}

/** True when a cell passed only on its retry (and failed nothing). */
export function cellFlaky(c: MatrixCell): boolean {
  return !cellRed(c) && (c.tcp === "flaky" || c.udp === "flaky");
}

/** True when a cell could not be measured at all. */
export function cellUnknown(c: MatrixCell): boolean {
  return !cellRed(c) && !cellFlaky(c) && (c.tcp === "unknown" || c.udp === "unknown");
}

/** The red pattern of one grid. */
export interface GridPattern {
  /** Every cell red (and there is at least one). */
  allRed: boolean;
  /** Rows whose every cell is red (empty when allRed). */
  redRows: string[];
  /** Columns whose every cell is red (empty when allRed). */
  redCols: string[];
  /** Red cells in no red row or column: [row, col]. */
  redCells: [string, string][];
  flakyCells: [string, string][];
  unknownCells: [string, string][];
  total: number;
  red: number;
  ok: number;
  /**
   * The protocol every red cell failed while the other one answered in that same cell ("udp": UDP
   * red, TCP green), "both" when any red cell failed both (or the other could not be measured),
   * null when nothing is red.
   */
  redProtocol: "tcp" | "udp" | "both" | null;
}

/** The protocol a red cell failed alone (the other one answered), or "both". */
function redOnly(c: MatrixCell): "tcp" | "udp" | "both" {
  const answered = (s: MatrixCell["tcp"]) => s === "ok" || s === "flaky";
  if (c.udp === "fail" && answered(c.tcp)) return "udp";
  if (c.tcp === "fail" && answered(c.udp)) return "tcp";
  return "both";
}

/** Finds the rows, columns and cells that are red in a grid. */
export function gridPattern(g: MatrixGrid): GridPattern {
  const rows = g.rows.length;
  const cols = g.cols.length;
  const at = (r: number, c: number): MatrixCell =>
    g.cells[r]?.[c] ?? { tcp: "unknown", udp: "unknown", detail: "not measured" };
  let red = 0;
  let ok = 0;
  let redProtocol: GridPattern["redProtocol"] = null;
  const flakyCells: [string, string][] = [];
  const unknownCells: [string, string][] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const cell = at(r, c);
      if (cellRed(cell)) {
        red++;
        const only = redOnly(cell);
        redProtocol = redProtocol === null || redProtocol === only ? only : "both";
      } else if (cellFlaky(cell)) flakyCells.push([g.rows[r], g.cols[c]]);
      else if (cellUnknown(cell)) unknownCells.push([g.rows[r], g.cols[c]]);
      else ok++;
    }
  }
  const total = rows * cols;
  // In a control grid a pod dialling itself (the diagonal) passes even when its node is cut off
  // from the others: the pattern is read over the other cells (a red diagonal cell still shows).
  const counts = (r: number, c: number) => !(g.control && g.rows[r] === g.cols[c]);
  const allOf = (cells: [number, number][]) => cells.length > 0 && cells.every(([r, c]) => cellRed(at(r, c)));
  const counted = (cells: [number, number][]) => cells.filter(([r, c]) => counts(r, c));
  const every: [number, number][] = g.rows.flatMap((_, r) => g.cols.map((_, c): [number, number] => [r, c]));
  const allRed = allOf(counted(every));
  const rowRed = (r: number) => allOf(counted(g.cols.map((_, c): [number, number] => [r, c])));
  const colRed = (c: number) => allOf(counted(g.rows.map((_, r): [number, number] => [r, c])));
  // Not all red, so with one column a red row is one red cell (the other rows reach that node: the
  // row is read), and with one row a red column is one red cell (the column is read).
  const redRowIdx = allRed ? [] : g.rows.map((_, r) => r).filter(rowRed);
  const redColIdx = allRed ? [] : g.cols.map((_, c) => c).filter(colRed);
  const redCells: [string, string][] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      if (!cellRed(at(r, c))) continue;
      const explained = counts(r, c) && (allRed || redRowIdx.includes(r) || redColIdx.includes(c));
      if (!explained) redCells.push([g.rows[r], g.cols[c]]);
    }
  }
  return {
    allRed,
    redRows: redRowIdx.map((r) => g.rows[r]),
    redCols: redColIdx.map((c) => g.cols[c]),
    redCells,
    flakyCells,
    unknownCells,
    total,
    red,
    ok,
    redProtocol,
  };
}

/** What one grid's pattern says, and the commands that look closer. */
interface GridReading {
  reading: string[];
  fixes: FixPart[];
}

function fabricPodCmd(ref: MatrixClusterRef, node: string): RemediationCommand {
  return kubectlIn(
    ref.side,
    ref.liqoNamespace,
    ...[
      "get",
      "pods",
      "-l",
      "app.kubernetes.io/name=fabric",
      "-o",
      "wide",
      "--field-selector",
      `spec.nodeName=${node}`,
    ],
  );
}

/** `kubectl get internalnode <node> -o yaml` on the ref's cluster. */
function internalNodeCmd(ref: MatrixClusterRef, node: string): RemediationCommand {
  return kubectl(ref.side, "get", "internalnode", node, "-o", "yaml");
}

/** The pods on `node` in the ref's cluster. */
function podsOnNode(ref: MatrixClusterRef, node: string): RemediationCommand {
  return kubectl(ref.side, "get", "pods", "-A", "-o", "wide", "--field-selector", `spec.nodeName=${node}`);
}

function readGrid(j: JudgedGrid, p: GridPattern, controlRed: ReadonlyMap<string, Set<string>>): GridReading {
  const { grid, from, to } = j;
  const reading: string[] = [];
  const fixes: FixPart[] = [];
  const redInControl = (ref: MatrixClusterRef, node: string) => controlRed.get(ref.name)?.has(node) ?? false;
  if (grid.control) {
    if (p.allRed) {
      reading.push(
        `${from.name} control grid all red: ${from.name}'s CNI (pod-to-pod inside the cluster), not Liqo`,
      );
    }
    for (const n of p.redRows) {
      reading.push(`${from.name} control: row ${n} red: ${n}'s pod network (CNI on that node), not Liqo`);
    }
    for (const n of p.redCols) {
      reading.push(`${from.name} control: column ${n} red: ${n}'s pod network (CNI on that node), not Liqo`);
    }
    for (const [a, b] of p.redCells) {
      reading.push(`${from.name} control: ${a} → ${b} red: that pair, inside ${from.name}`);
    }
    if (p.red > 0) {
      fixes.push(
        `${from.name}: pods cannot reach each other inside the cluster — fix the CNI before Liqo`,
        pipe(
          kubectl(from.side, "get", "pods", "-A", "-o", "wide"),
          shell("grep", "-Ei", "calico|cilium|flannel|kindnet|weave|antrea|ovn"),
        ),
        flyingfish("check", "--only", "cni"),
      );
    }
    return { reading, fixes };
  }
  const single = p.redProtocol === "udp" || p.redProtocol === "tcp" ? p.redProtocol : null;
  if (single) return readOneProtocol(j, p, single);
  if (p.allRed) {
    reading.push(
      `${grid.title}: everything red: the tunnel or a gateway (no node of ${from.name} reaches ${to.name})`,
    );
    fixes.push(
      `nothing crosses ${from.name} → ${to.name}: look at the gateways and the tunnel`,
      flyingfish("check", "--only", "gateway,tunnel"),
      kubectl(from.side, "get", "connections.networking.liqo.io", "-A"),
      flyingfish("probe", "trace"),
    );
  }
  for (const n of p.redRows) {
    if (redInControl(from, n)) {
      reading.push(
        `${grid.title}: row ${n} red, also in ${from.name}'s control grid: ${n}'s own pod network (CNI), not the fabric`,
      );
      fixes.push(podsOnNode(from, n));
      continue;
    }
    reading.push(`${grid.title}: row ${n} red: ${n}'s Geneve/fabric path to ${from.name}'s gateway`);
    fixes.push(
      `${n} (${from.name}) reaches nothing in ${to.name}: its Geneve tunnel to the gateway`,
      internalNodeCmd(from, n),
      fabricPodCmd(from, n),
      flyingfish("check", "--only", "fabric"),
    );
  }
  for (const n of p.redCols) {
    const what = j.colsArePods ? `pod ${n} (its remote node is unknown without --remote-kubeconfig)` : n;
    if (!j.colsArePods && redInControl(to, n)) {
      reading.push(
        `${grid.title}: column ${n} red, also in ${to.name}'s control grid: ${n}'s own pod network (CNI)`,
      );
      fixes.push(podsOnNode(to, n));
      continue;
    }
    reading.push(`${grid.title}: column ${what} red: that ${to.name} node`);
    if (j.colsArePods) {
      fixes.push(
        `the offloaded pod's ${to.name} node is unknown from here: probe with ${to.name}'s kubeconfig to name it`,
        flyingfish("probe", "matrix", "--remote-kubeconfig", `<kubeconfig of ${to.name}>`),
      );
    } else {
      fixes.push(
        `nothing in ${from.name} reaches ${n} (${to.name}): that node's fabric, CNI or a policy on it`,
        kubectl(to.side, "get", "node", n, "-o", "wide"),
        internalNodeCmd(to, n),
        fabricPodCmd(to, n),
      );
    }
  }
  for (const [a, b] of p.redCells) {
    reading.push(`${grid.title}: ${a} → ${b} red: that pair only`);
  }
  if (p.redCells.length > 0) {
    fixes.push(
      "single pairs: look at both ends, then localise the hop",
      ...[...new Set(p.redCells.map(([a]) => a))].slice(0, 3).map((a) => internalNodeCmd(from, a)),
      flyingfish("probe", "trace"),
    );
  }
  for (const [a, b] of p.flakyCells) {
    reading.push(`${grid.title}: ${a} → ${b} flaky: failed once, passed on the retry`);
  }
  return { reading, fixes };
}

/** The port each protocol is probed on, for the filter a one-protocol pattern points at. */
const PROTOCOL_PORT = { tcp: "TCP 8080", udp: "UDP 8081" } as const;

/**
 * A cross grid red on one protocol only: the other protocol crossed the same pods, nodes, Geneve
 * paths, gateways and tunnel, so none of those is the fault — something filters, drops or
 * mistranslates that protocol (a NetworkPolicy, a firewall, a NAT rule matching it).
 */
function readOneProtocol(j: JudgedGrid, p: GridPattern, proto: "tcp" | "udp"): GridReading {
  const { grid, from, to } = j;
  const P = proto.toUpperCase();
  const other = proto === "udp" ? "TCP" : "UDP";
  const where = p.allRed ? "everything" : [
    ...p.redRows.map((n) => `row ${n}`),
    ...p.redCols.map((n) => `${j.colsArePods ? "pod" : "column"} ${n}`),
    ...p.redCells.map(([a, b]) => `${a} → ${b}`),
  ].join(", ");
  const reading = [
    `${grid.title}: ${where} red on ${P} only while ${other} crosses the same cells: a filter on ${P} (a NetworkPolicy, a firewall or NAT rule matching ${
      PROTOCOL_PORT[proto]
    }), not the tunnel, the gateways or the Geneve paths`,
  ];
  const fixes: FixPart[] = [
    `${other} crosses ${from.name} → ${to.name} and ${P} does not: look for what treats ${P} differently on the way`,
    kubectl(to.side, "get", "networkpolicies", "-A"),
    kubectl(from.side, "get", "networkpolicies", "-A"),
    kubectl(from.side, "get", "firewallconfigurations.networking.liqo.io", "-A"),
    kubectl(to.side, "get", "firewallconfigurations.networking.liqo.io", "-A"),
  ];
  if (proto === "udp") fixes.push(step(flyingfish("probe", "trace"), "the hop where the UDP datagram stops"));
  return { reading, fixes };
}

/** One line of cell detail for the evidence. */
function cellLine(grid: MatrixGrid, r: number, c: number): string {
  const cell = grid.cells[r][c];
  const state = cellRed(cell) ? "red" : cellFlaky(cell) ? "flaky" : "unknown";
  return `${grid.rows[r]} → ${grid.cols[c]} (${grid.title}) ${state}: ${
    cell.detail || `TCP ${cell.tcp}, UDP ${cell.udp}`
  }`;
}

/** The judged matrix: the outcome and the report's matrix block. */
export interface MatrixJudgement {
  outcome: Outcome;
  matrix: ActiveMatrix;
}

/**
 * Judges the grids: fail on any red cell (cross or control), warn on flaky or unmeasured cells when
 * nothing is red, unknown when nothing could be measured, pass when every cell answered.
 */
export function judgeMatrix(grids: readonly JudgedGrid[]): MatrixJudgement {
  const patterns = grids.map((j) => gridPattern(j.grid));
  // Nodes red in their own cluster's control grid (by cluster name): read as CNI, not fabric.
  const controlRed = new Map<string, Set<string>>();
  grids.forEach((j, i) => {
    if (!j.grid.control) return;
    const p = patterns[i];
    const set = new Set<string>([...p.redRows, ...p.redCols]);
    if (p.allRed) j.grid.rows.forEach((n) => set.add(n));
    controlRed.set(j.from.name, set);
  });
  const cutOff = cutOffBothWays(grids, patterns, controlRed);
  const reading: string[] = cutOff.map((c) =>
    `${c.node} (${c.cluster}) is red both ways across the peering while its own cluster reaches it: ` +
    `its Geneve/fabric path to ${c.cluster}'s gateway, or a policy on it — not the tunnel`
  );
  const parts: FixPart[] = cutOff.flatMap((c) => {
    const ref = grids[c.outGrid].from;
    return [
      `${c.node} (${c.cluster}) is cut off from ${c.peer} both ways: its Geneve tunnel to the gateway`,
      internalNodeCmd(ref, c.node),
      fabricPodCmd(ref, c.node),
      flyingfish("check", "--only", "fabric"),
    ];
  });
  grids.forEach((j, i) => {
    const r = readGrid(j, patterns[i], controlRed);
    reading.push(...r.reading);
    parts.push(...r.fixes);
  });
  const fixes = unique(fix(...parts));

  const evidence: string[] = grids.map((j, i) => {
    const p = patterns[i];
    const flaky = p.flakyCells.length ? `, ${p.flakyCells.length} flaky` : "";
    const unknown = p.unknownCells.length ? `, ${p.unknownCells.length} not measured` : "";
    return `${j.grid.title}: ${p.ok}/${p.total} cells ok, ${p.red} red${flaky}${unknown} ` +
      `(${j.grid.rows.length} × ${j.grid.cols.length})`;
  });
  const notes = [...new Set(grids.map((j) => j.note).filter((n): n is string => !!n))];
  evidence.push(...notes);
  reading.push(...notes);
  const details: string[] = [];
  for (const j of grids) {
    j.grid.rows.forEach((_, r) =>
      j.grid.cols.forEach((_, c) => {
        const cell = j.grid.cells[r]?.[c];
        if (cell && (cellRed(cell) || cellFlaky(cell) || cellUnknown(cell))) {
          details.push(cellLine(j.grid, r, c));
        }
      })
    );
  }
  evidence.push(...details.slice(0, CELLS_SHOWN));
  if (details.length > CELLS_SHOWN) evidence.push(`… and ${details.length - CELLS_SHOWN} more cells`);

  const total = patterns.reduce((n, p) => n + p.total, 0);
  const red = patterns.reduce((n, p) => n + p.red, 0);
  const flaky = patterns.reduce((n, p) => n + p.flakyCells.length, 0);
  const unknown = patterns.reduce((n, p) => n + p.unknownCells.length, 0);
  const matrix: ActiveMatrix = { grids: grids.map((j) => j.grid), rules: [...MATRIX_RULES], reading };

  let status: Status;
  let summary: string;
  if (total === 0) {
    status = "unknown";
    summary = "no matrix cell to measure (no probe pod on one side)";
  } else if (red > 0) {
    status = "fail";
    summary = headline(grids, patterns, cutOff) ?? `${red}/${total} cells red`;
  } else if (unknown === total) {
    status = "unknown";
    summary = `no cell could be measured: ${firstUnknownDetail(grids) ?? "exec failed"}`;
  } else if (flaky > 0) {
    status = "warn";
    summary = `every cell answered, ${flaky} only on the retry (flaky)${
      unknown ? `; ${unknown} not measured` : ""
    }`;
  } else if (unknown > 0) {
    status = "warn";
    summary = `${total - unknown}/${total} cells ok, ${unknown} could not be measured: ${
      firstUnknownDetail(grids) ?? "exec failed"
    }`;
  } else {
    status = "pass";
    summary = `all ${total} cells ok (TCP and UDP) across ${grids.length} grid${
      grids.length === 1 ? "" : "s"
    }`;
  }
  // Out of time: say which cells were never measured (and never read a partial matrix as a pass).
  const unreached = grids.flatMap((j) =>
    j.grid.rows.flatMap((row, r) =>
      j.grid.cols.flatMap((col, c) =>
        j.grid.cells[r]?.[c]?.detail === NOT_REACHED ? [`${row} → ${col} (${j.grid.title})`] : []
      )
    )
  );
  if (unreached.length > 0) {
    const shown = unreached.slice(0, NOT_REACHED_SHOWN).join(", ");
    const more = unreached.length > NOT_REACHED_SHOWN
      ? ` and ${unreached.length - NOT_REACHED_SHOWN} more`
      : "";
    const line =
      `the probe ran out of time: ${unreached.length}/${total} cells not reached (${shown}${more})`;
    if (status !== "fail") {
      status = "unknown";
      summary = line;
    } else summary = `${summary}; ${line}`;
    reading.push(`${line} — raise --probe-timeout to measure them`);
  }
  if (status === "pass") reading.push("every cell green: pod-to-pod reaches every node both ways");
  return {
    outcome: {
      status,
      summary,
      evidence,
      ...(fixes.length && status !== "pass" ? { remediation: fixes } : {}),
    },
    matrix,
  };
}

function firstUnknownDetail(grids: readonly JudgedGrid[]): string | null {
  for (const j of grids) {
    for (const row of j.grid.cells) {
      for (const c of row) if (cellUnknown(c) && c.detail) return c.detail;
    }
  }
  return null;
}

/** The one-line summary of a red matrix: the most telling pattern first (cross grids before control). */
function headline(
  grids: readonly JudgedGrid[],
  patterns: readonly GridPattern[],
  cutOff: readonly CutOff[],
): string | null {
  const parts: string[] = cutOff.map((c) => `${c.node} (${c.cluster}) cut off from ${c.peer} both ways`);
  const explained = new Set(
    cutOff.flatMap((c) => [`${c.outGrid}|row|${c.node}`, `${c.inGrid}|col|${c.node}`]),
  );
  const order = grids.map((_, i) => i).sort((a, b) =>
    Number(grids[a].grid.control) - Number(grids[b].grid.control)
  );
  for (const i of order) {
    const j = grids[i];
    const p = patterns[i];
    if (p.red === 0) continue;
    const where = j.grid.control ? `${j.from.name} control grid` : `${j.from.name} → ${j.to.name}`;
    if (!j.grid.control && (p.redProtocol === "udp" || p.redProtocol === "tcp")) {
      const P = p.redProtocol.toUpperCase();
      const other = p.redProtocol === "udp" ? "TCP" : "UDP";
      parts.push(
        `${where}: ${
          p.allRed ? "every cell" : `${p.red}/${p.total} cells`
        } red on ${P} only, ${other} ok (a ${P} filter, not the tunnel)`,
      );
      continue;
    }
    if (p.allRed) {
      parts.push(
        j.grid.control ? `${where} all red (CNI, not Liqo)` : `${where}: everything red (tunnel or gateway)`,
      );
      continue;
    }
    const bits: string[] = [];
    const rows = p.redRows.filter((n) => !explained.has(`${i}|row|${n}`));
    const cols = p.redCols.filter((n) => !explained.has(`${i}|col|${n}`));
    if (rows.length) bits.push(`row${rows.length > 1 ? "s" : ""} ${rows.join(", ")} red`);
    if (cols.length) {
      const noun = j.colsArePods ? "pod" : "column";
      bits.push(`${noun}${cols.length > 1 ? "s" : ""} ${cols.join(", ")} red`);
    }
    if (p.redCells.length) {
      bits.push(
        p.redCells.length === 1
          ? `${p.redCells[0][0]} → ${p.redCells[0][1]} red`
          : `${p.redCells.length} single cells red`,
      );
    }
    if (bits.length) parts.push(`${where}: ${bits.join("; ")}${j.grid.control ? " (CNI, not Liqo)" : ""}`);
  }
  return parts.length ? parts.join("; ") : null;
}

/** A node whose cluster's pods reach it, but nothing crosses to or from the peer. */
interface CutOff {
  node: string;
  cluster: string;
  peer: string;
  /** Index of the grid where it is a red row (its cluster → the peer). */
  outGrid: number;
  /** Index of the grid where it is a red column (the peer → its cluster). */
  inGrid: number;
}

/**
 * Nodes red both ways across the peering: a red row in their cluster's outgoing grid and a red
 * column in the incoming one (direct mode), not red in their own control grid. One fault, read
 * once: the node's path to its own gateway — whichever cluster it is in.
 */
function cutOffBothWays(
  grids: readonly JudgedGrid[],
  patterns: readonly GridPattern[],
  controlRed: ReadonlyMap<string, Set<string>>,
): CutOff[] {
  const out: CutOff[] = [];
  grids.forEach((j, i) => {
    if (j.grid.control || patterns[i].redProtocol !== "both") return;
    const k = grids.findIndex((b) =>
      !b.grid.control && b.from.name === j.to.name && b.to.name === j.from.name
    );
    if (k < 0) return;
    for (const node of patterns[i].redRows) {
      if (!patterns[k].redCols.includes(node) || controlRed.get(j.from.name)?.has(node)) continue;
      out.push({ node, cluster: j.from.name, peer: j.to.name, outGrid: i, inGrid: k });
    }
  });
  return out;
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

/**
 * The matrix read for one end of the probed peering (FAB-03's active half): every row of the
 * cluster's outgoing cross grids, each node's verdict by the reading rules — a row red while the
 * node is green in its own control grid is its Geneve path to the gateway; red there too is its CNI;
 * everything red is the tunnel or a gateway, not one node.
 */
export function genevePathReading(
  matrix: ActiveMatrix,
  end: { cluster: string; peer: string },
): GenevePathReading {
  const out = matrix.grids.filter((g) =>
    !g.control && g.fromCluster === end.cluster && g.toCluster !== end.cluster
  );
  const back = matrix.grids.filter((g) =>
    !g.control && g.toCluster === end.cluster && g.fromCluster !== end.cluster
  );
  const control = controlRed(matrix.grids, end.cluster);
  const redColsBack = new Map(back.map((g) => [g, gridPattern(g).redCols]));
  const nodes: NodePathVerdict[] = [];
  let allRed = false;
  for (const g of out) {
    const p = gridPattern(g);
    // Red on one protocol only: the other crossed every node's Geneve path (a filter, not the fabric).
    const single = p.redProtocol === "udp" || p.redProtocol === "tcp";
    // Everything red is the tunnel or a gateway (the judge's reading), not one node's Geneve path.
    if (p.allRed && !single) {
      allRed = true;
      continue;
    }
    g.rows.forEach((node, r) => {
      const cells = cellsOf(g, r);
      if (p.redRows.includes(node) && !single) {
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
      const answered = (c: MatrixCell) => c.tcp === "ok" || c.udp === "ok";
      const ok = cells.filter((c) => single ? answered(c) : !cellRed(c) && !cellFlaky(c) && !cellUnknown(c))
        .length;
      const flaky = cells.filter(cellFlaky).length;
      if (ok + flaky > 0) nodes.push({ kind: "reached", node, flakyOnly: ok === 0 });
      else nodes.push({ kind: "unconfirmed", node, grid: g.title, anyRed: cells.some(cellRed) });
    });
  }
  return {
    cluster: end.cluster,
    peer: end.peer,
    peerName: out[0]?.toCluster ?? end.peer,
    allRed,
    grids: out.length,
    nodes,
  };
}
