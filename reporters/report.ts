/**
 * The report model: the JSON contract every reporter renders from. `ReportSchema` is the source of
 * truth; `flyingfish schema` ships `jsonSchema()`. Field names are stable; additions bump nothing,
 * renames or removals bump `SCHEMA_VERSION`.
 */
import { z } from "zod";
import { type CheckResult, LAYERS, type Status, STATUSES } from "../checks/types.ts";

/** Version of the report document shape. */
export const SCHEMA_VERSION = "1";

/** Zod schema of one check result (mirrors `CheckResult` in checks/types.ts). */
export const CheckResultSchema = z.object({
  id: z.string().describe("Stable check ID, e.g. GW-02"),
  title: z.string(),
  layer: z.enum(LAYERS),
  status: z.enum(STATUSES as [Status, ...Status[]]),
  peer: z.string().nullable().describe(
    "Remote cluster ID for peer-scoped checks, null for cluster-wide ones",
  ),
  cluster: z.string().describe('Cluster the check observed ("A ↔ B" for checks comparing both)'),
  summary: z.string(),
  evidence: z.array(z.string()),
  remediation: z.string().nullable(),
  blockedBy: z.string().nullable().describe("ID of the failed check that kept this one from running"),
  durationMs: z.number().nonnegative(),
});

/** One cluster the run looked at. */
export const ClusterInfoSchema = z.object({
  name: z.string().describe("Display name: the Liqo cluster ID when known, else the kubeconfig context"),
  clusterId: z.string().nullable(),
  context: z.string(),
  server: z.string(),
  role: z.enum(["local", "remote"]),
  liqoNamespace: z.string().nullable(),
  liqoVersion: z.string().nullable(),
});

/** One peer (ForeignCluster) as seen from one cluster. */
export const PeerInfoSchema = z.object({
  cluster: z.string().describe("Cluster that holds the ForeignCluster"),
  clusterId: z.string().describe("Remote cluster ID (spec.clusterID)"),
  role: z.string().describe("ForeignCluster status.role"),
  tenantNamespace: z.string().nullable(),
});

/** The first broken link. */
export const DiagnosisSchema = z.object({
  id: z.string(),
  layer: z.enum(LAYERS),
  peer: z.string().nullable(),
  cluster: z.string(),
  summary: z.string(),
  remediation: z.string().nullable(),
});

/** Status counts. */
export const SummarySchema = z.object({
  pass: z.int().nonnegative(),
  warn: z.int().nonnegative(),
  fail: z.int().nonnegative(),
  skip: z.int().nonnegative(),
  unknown: z.int().nonnegative(),
  total: z.int().nonnegative(),
});

/** A condition of a ForeignCluster module. */
export const ModuleConditionSchema = z.object({
  type: z.string(),
  status: z.string(),
  since: z.string().nullable().describe("lastTransitionTime, if any"),
});

/** A ForeignCluster row of the peering dump. */
export const ForeignClusterRowSchema = z.object({
  cluster: z.string().describe("Cluster that holds the ForeignCluster"),
  name: z.string(),
  role: z.string(),
  age: z.string(),
  modules: z.array(z.object({
    name: z.string(),
    enabled: z.boolean(),
    conditions: z.array(ModuleConditionSchema),
  })),
});

/** A titled table of the peering dump (ResourceSlices, Identities, Tenants, …). */
export const DumpTableSchema = z.object({
  title: z.string(),
  columns: z.array(z.string()),
  rows: z.array(z.array(z.string())),
});

/** The peering resource dump. */
export const PeeringDumpSchema = z.object({
  foreignClusters: z.array(ForeignClusterRowSchema),
  tables: z.array(DumpTableSchema).describe(
    "ResourceSlices, Identities, Tenants, NamespaceOffloadings, virtual nodes — one table each",
  ),
});

/** One entry of the manual test cheat sheet. */
export const CheatSheetEntrySchema = z.object({
  title: z.string(),
  value: z.string().describe("The concrete IP, port, CIDR or MTU discovered"),
  command: z.string().nullable().describe("A ready-to-paste command"),
  cluster: z.string().nullable(),
  peer: z.string().nullable(),
});

/** The whole report document (`flyingfish check -o json`). */
export const ReportSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  tool: z.object({ name: z.literal("flyingfish"), version: z.string() }),
  generatedAt: z.iso.datetime({ offset: true }).describe("RFC 3339"),
  mode: z.enum(["live", "snapshot"]),
  snapshotTakenAt: z.string().nullable(),
  clusters: z.array(ClusterInfoSchema),
  peers: z.array(PeerInfoSchema),
  results: z.array(CheckResultSchema),
  diagnosis: DiagnosisSchema.nullable(),
  summary: SummarySchema,
  exitCode: z.int().min(0).max(3).describe("0 pass, 1 warnings/unknown, 2 failure, 3 tool error"),
  durationMs: z.number().nonnegative(),
  peering: PeeringDumpSchema.nullable(),
  cheatSheet: z.array(CheatSheetEntrySchema),
}).meta({
  title: "FlyingFish report",
  description: "Result of a flyingfish check run (Liqo inter-cluster connectivity diagnosis)",
});

/** The report document. */
export type Report = z.infer<typeof ReportSchema>;
/** A cluster of the report. */
export type ClusterInfo = z.infer<typeof ClusterInfoSchema>;
/** A peer of the report. */
export type PeerInfo = z.infer<typeof PeerInfoSchema>;
/** The peering dump. */
export type PeeringDump = z.infer<typeof PeeringDumpSchema>;
/** A ForeignCluster row of the peering dump. */
export type ForeignClusterRow = z.infer<typeof ForeignClusterRowSchema>;
/** A titled table of the peering dump. */
export type DumpTable = z.infer<typeof DumpTableSchema>;
/** A cheat sheet entry. */
export type CheatSheetEntry = z.infer<typeof CheatSheetEntrySchema>;
/** The status counts. */
export type ReportSummary = z.infer<typeof SummarySchema>;

// Compile-time guard: the schema's result type and checks/types.ts CheckResult stay in step.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _resultShapeMatches: Same<z.infer<typeof CheckResultSchema>, CheckResult> = true;
void _resultShapeMatches;

/** The JSON Schema (draft 2020-12) of the report, generated from `ReportSchema`. */
export function jsonSchema(): Record<string, unknown> {
  return {
    $id: `https://flyingfish.dev/schema/report-v${SCHEMA_VERSION}.json`,
    ...z.toJSONSchema(ReportSchema, { target: "draft-2020-12" }),
  };
}

/** Counts results per status, plus the total. */
export function summarize(results: readonly CheckResult[]): ReportSummary {
  const s: ReportSummary = { pass: 0, warn: 0, fail: 0, skip: 0, unknown: 0, total: results.length };
  for (const r of results) s[r.status]++;
  return s;
}

/** The report with keys in schema order (stable output); returned unchanged if it does not validate. */
export function canonical(report: Report): Report {
  const parsed = ReportSchema.safeParse(report);
  return parsed.success ? parsed.data : report;
}

/** The ForeignCluster rows as a titled table (module column: `name ✓/✗ cond=status…`). */
export function foreignClusterTable(rows: readonly ForeignClusterRow[]): DumpTable {
  return {
    title: "ForeignClusters",
    columns: ["Cluster", "Name", "Role", "Age", "Modules"],
    rows: rows.map((fc) => [
      fc.cluster,
      fc.name,
      fc.role,
      fc.age,
      fc.modules.map((m) => {
        const conds = m.conditions.map((c) => `${c.type}=${c.status}${c.since ? ` (since ${c.since})` : ""}`);
        return `${m.name}${m.enabled ? "" : " (disabled)"}${conds.length ? `: ${conds.join(", ")}` : ""}`;
      }).join("; "),
    ]),
  };
}

/** Which label parts vary across the results: more than one cluster, more than one peer. */
export function varyingScopes(results: readonly CheckResult[]): { cluster: boolean; peer: boolean } {
  const clusters = new Set(results.map((r) => r.cluster));
  const peers = new Set(results.flatMap((r) => (r.peer === null ? [] : [r.peer])));
  return { cluster: clusters.size > 1, peer: peers.size > 1 };
}

/** Formats a duration in ms as `850ms` / `4.8s` / `2m03s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}
