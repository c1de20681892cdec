/**
 * The report's `active` block: what an active probe run created and removed, and the reachability
 * matrix. The shapes are active/model.ts's; this module is their zod schema (the published
 * JSON Schema is generated from it) and re-exports them for the renderers.
 */
import { shellQuote } from "../kube/rerun.ts";
import { z } from "zod";
import {
  type ActiveMatrix,
  type ActiveRunRecord,
  type CellState,
  type CleanupRecord,
  type CreatedObject,
  type ExcludedNode,
  type MatrixCell,
  type MatrixGrid,
  PROBE_NAMES,
} from "../active/mod.ts";

export type {
  ActiveMatrix,
  ActiveRunRecord,
  CellState,
  CleanupRecord,
  CreatedObject,
  ExcludedNode,
  MatrixCell,
  MatrixGrid,
} from "../active/mod.ts";

const CELL_STATES: readonly [CellState, ...CellState[]] = ["ok", "fail", "flaky", "unknown"];

/** Zod schema of {@link MatrixCell}. */
export const MatrixCellSchema: z.ZodType<MatrixCell> = z.object({
  tcp: z.enum(CELL_STATES).describe("TCP connect: ok, fail, flaky (passed only on the one retry), unknown"),
  udp: z.enum(CELL_STATES).describe("UDP echo: ok, fail, flaky (passed only on the one retry), unknown"),
  detail: z.string().describe('Why the cell is not ok; "" when both protocols are ok'),
});

/** Zod schema of {@link MatrixGrid}. */
export const MatrixGridSchema: z.ZodType<MatrixGrid> = z.object({
  title: z.string(),
  control: z.boolean().describe("A same-cluster control grid (tests that cluster's CNI, not Liqo)"),
  fromCluster: z.string(),
  toCluster: z.string(),
  rows: z.array(z.string()).describe("Source nodes (one probe pod each)"),
  cols: z.array(z.string()).describe("Destination nodes (or pods, when the remote node is unknown)"),
  cells: z.array(z.array(MatrixCellSchema)).describe("cells[row][col]"),
});

/** Zod schema of {@link ActiveMatrix}. */
export const ActiveMatrixSchema: z.ZodType<ActiveMatrix> = z.object({
  grids: z.array(MatrixGridSchema),
  rules: z.array(z.string()).describe("The reading rules printed with the matrix"),
  reading: z.array(z.string()).describe("What this matrix's pattern says"),
});

/** Zod schema of {@link CreatedObject}. */
export const CreatedObjectSchema: z.ZodType<CreatedObject> = z.object({
  cluster: z.string(),
  kind: z.string(),
  namespace: z.string().nullable(),
  name: z.string(),
});

/** Zod schema of {@link CleanupRecord}. */
export const CleanupRecordSchema: z.ZodType<CleanupRecord> = z.object({
  cluster: z.string(),
  namespace: z.string(),
  status: z.enum(["removed", "kept", "stuck", "failed"]).describe(
    "removed: gone; kept: --keep; stuck: still Terminating when the capped wait ended; failed: delete refused",
  ),
  detail: z.string(),
});

/** Zod schema of {@link ExcludedNode}. */
export const ExcludedNodeSchema: z.ZodType<ExcludedNode> = z.object({
  side: z.enum(["local", "remote"]),
  node: z.string(),
  reason: z.string(),
});

/** Zod schema of {@link ActiveRunRecord}. */
export const ActiveRunRecordSchema: z.ZodType<ActiveRunRecord> = z.object({
  runId: z.string().describe("The run id: the namespace is flyingfish-probe-<runId>"),
  mode: z.enum(["direct", "offload"]),
  peer: z.string().describe("Remote cluster ID of the peer probed"),
  probes: z.array(z.enum(PROBE_NAMES)),
  created: z.array(CreatedObjectSchema).describe("Every object the run created"),
  cleanup: z.array(CleanupRecordSchema).describe("What became of each run namespace"),
  excluded: z.array(ExcludedNodeSchema).describe("Nodes left out of the fleet, and why"),
  images: z.record(z.string(), z.string()).describe("Images used, by role"),
  matrix: ActiveMatrixSchema.nullable(),
});

/** The cell mark of one protocol: ✓ ok, ✗ fail, ~ flaky (passed only on the retry), ? unknown. */
export const CELL_MARKS: Readonly<Record<CellState, string>> = {
  ok: "✓",
  fail: "✗",
  flaky: "~",
  unknown: "?",
};

/** What a cell shows: one mark when TCP and UDP agree, else `TCP/UDP` (e.g. `✓/✗`). */
export function cellText(cell: MatrixCell): string {
  return cell.tcp === cell.udp ? CELL_MARKS[cell.tcp] : `${CELL_MARKS[cell.tcp]}/${CELL_MARKS[cell.udp]}`;
}

/** The worse state of a cell's two protocols (fail > unknown > flaky > ok): its colour. */
export function cellState(cell: MatrixCell): CellState {
  const order: CellState[] = ["fail", "unknown", "flaky", "ok"];
  return order.find((s) => cell.tcp === s || cell.udp === s) ?? "ok";
}

/** What the cell marks mean, in one line. */
export const CELL_LEGEND = "✓ answered · ✗ failed · ~ flaky (passed only on the retry) · ? not measured; " +
  "TCP/UDP when they differ";

/** Created objects per cluster, counted by kind: `rome: Namespace flyingfish-probe-x, 3 Pods`. */
export function createdSummary(created: readonly CreatedObject[]): string[] {
  const byCluster = new Map<string, CreatedObject[]>();
  for (const o of created) byCluster.set(o.cluster, [...(byCluster.get(o.cluster) ?? []), o]);
  return [...byCluster].map(([cluster, objs]) => {
    const kinds = new Map<string, string[]>();
    for (const o of objs) kinds.set(o.kind, [...(kinds.get(o.kind) ?? []), o.name]);
    const parts = [...kinds].map(([kind, names]) =>
      names.length === 1 ? `${kind} ${names[0]}` : `${names.length} ${kind}s`
    );
    const ns = objs.find((o) => o.namespace)?.namespace;
    return `${cluster}: ${parts.join(", ")}${ns && !kinds.has("Namespace") ? ` (in ${ns})` : ""}`;
  });
}

/**
 * The command that removes what a run left (kept with --keep, or stuck): `flyingfish probe
 * --cleanup --run-id <id>` with the cluster flags the report knows (kubeconfig files, contexts).
 */
export function cleanupCommandOf(
  record: Pick<ActiveRunRecord, "runId">,
  clusters: readonly { role: "local" | "remote"; context: string }[],
  kubeconfig: { local: string | null; remote: string | null } | null,
): string {
  const words = ["flyingfish probe --cleanup --run-id", record.runId];
  for (const c of clusters) {
    if (c.context === "") continue;
    const prefix = c.role === "remote" ? "--remote-" : "--";
    const file = kubeconfig?.[c.role];
    if (file) words.push(`${prefix}kubeconfig`, shellQuote(file));
    words.push(`${prefix}context`, shellQuote(c.context));
  }
  return words.join(" ");
}
