/**
 * The report's published shape: the interfaces of the JSON contract and their zod schemas.
 * `ReportSchema` is the source of truth; `flyingfish schema` ships `jsonSchema()`. Field names are
 * stable; additions bump nothing, renames, removals and type changes bump `SCHEMA_VERSION`.
 *
 * Schema 2 (from 1): `remediation` of results and of the diagnosis is a list of `{command, comment}`
 * steps (was a string or null; no remediation is `[]`), and the report records its `invocation`;
 * `clusters[].serverVersion` is new (optional). Each command names the cluster it must run against
 * from where the check says it runs (checks/remediation.ts `on`; report/targets.ts): the shape is
 * unchanged.
 */
import { z } from "zod";
import { type CheckResult, LAYERS, type SkipKind, type Status, STATUSES } from "../checks/types.ts";
import type { AlsoFailing, Diagnosis } from "../checks/diagnosis.ts";
import { type Invocation, InvocationSchema } from "./invocation.ts";
import { type ReportStep, ReportStepSchema } from "./remediation.ts";
import { type ActiveRunRecord, ActiveRunRecordSchema } from "./active.ts";
import { type DiffReport, DiffReportSchema } from "./diff_schema.ts";
import { type PreflightBlock, PreflightBlockSchema } from "./preflight.ts";

/** Version of the report document shape. */
export const SCHEMA_VERSION = "2";

/** A check result as the report carries it: remediation as steps naming their cluster. */
export type ReportResult = Omit<CheckResult, "remediation"> & { remediation: ReportStep[] };

/** The diagnosis as the report carries it: remediation as steps naming their cluster. */
export type ReportDiagnosis = Omit<Diagnosis, "remediation"> & { remediation: ReportStep[] };

/** One cluster the run looked at. */
export interface ClusterInfo {
  /** Display name: the Liqo cluster ID when known, else the kubeconfig context. */
  name: string;
  /** The Liqo cluster ID (null: not found, or unreadable). */
  clusterId: string | null;
  /** The kubeconfig context (from a snapshot: the one recorded at capture). */
  context: string;
  /** The API server URL (credentials never included). */
  server: string;
  /** `local`: named by --kubeconfig/--context; `remote`: by --remote-kubeconfig/--remote-context. */
  role: "local" | "remote";
  /** Namespace Liqo runs in (null: not found, or unreadable: see liqoUnreadable). */
  liqoNamespace: string | null;
  /** The Liqo version (controller-manager image tag; null: unknown). */
  liqoVersion: string | null;
  /** Kubernetes version the API server reports (`/version` gitVersion); null or absent: unknown. */
  serverVersion?: string | null;
  /**
   * Why Liqo's installation could not be read (the Deployments that locate it: kind and status);
   * absent when it was looked for. With it, a null liqoNamespace means "unknown", not "not installed".
   */
  liqoUnreadable?: string;
}

/** One peer (ForeignCluster) as seen from one cluster. */
export interface PeerInfo {
  /** Cluster that holds the ForeignCluster. */
  cluster: string;
  /** The remote cluster ID (spec.clusterID). */
  clusterId: string;
  /** ForeignCluster status.role (Provider, Consumer, …). */
  role: string;
  /** The tenant namespace of this peer on `cluster` (null: none yet). */
  tenantNamespace: string | null;
}

/** Status counts. */
export interface ReportSummary {
  /** Results that passed. */
  pass: number;
  /** Results with a warning. */
  warn: number;
  /** Failed results. */
  fail: number;
  /** Skipped results (not applicable, blocked, needs --remote-kubeconfig, disabled). */
  skip: number;
  /** Results that could not be determined. */
  unknown: number;
  /** All results. */
  total: number;
}

/** A condition of a ForeignCluster module. */
export interface ModuleCondition {
  /** Condition type, e.g. NetworkConnectionStatus. */
  type: string;
  /** Condition status, e.g. Ready, Error. */
  status: string;
  /** How long the condition has held, if known. */
  since: string | null;
}

/** A ForeignCluster row of the peering dump. */
export interface ForeignClusterRow {
  /** Cluster that holds the ForeignCluster. */
  cluster: string;
  /** ForeignCluster name. */
  name: string;
  /** ForeignCluster status.role. */
  role: string;
  /** Age of the ForeignCluster. */
  age: string;
  /** The modules (networking, authentication, offloading) and their conditions. */
  modules: { name: string; enabled: boolean; conditions: ModuleCondition[] }[];
}

/** A titled table of the peering dump. */
export interface DumpTable {
  /** Table title. */
  title: string;
  /** Column headers. */
  columns: string[];
  /** Rows, one cell per column. */
  rows: string[][];
}

/** The peering dump. */
export interface PeeringDump {
  /** The ForeignClusters of every cluster read. */
  foreignClusters: ForeignClusterRow[];
  /** ResourceSlices, Identities, Tenants, NamespaceOffloadings, virtual nodes — one table each. */
  tables: DumpTable[];
}

/** A cheat sheet entry. */
export interface CheatSheetEntry {
  /** What the value is. */
  title: string;
  /** The concrete IP, port, CIDR or MTU discovered. */
  value: string;
  /** A ready-to-paste command (null: none). */
  command: string | null;
  /** Cluster the value was read on. */
  cluster: string | null;
  /** Peer the value is about. */
  peer: string | null;
}

/** The report document (`flyingfish check -o json`). */
export interface Report {
  /** Version of the document shape ({@link SCHEMA_VERSION}). */
  schemaVersion: typeof SCHEMA_VERSION;
  /** The tool that wrote it. */
  tool: { name: "flyingfish"; version: string };
  /** When the report was written (RFC 3339). */
  generatedAt: string;
  /** `live`: clusters read now; `snapshot`: a `collect` bundle replayed. */
  mode: "live" | "snapshot";
  /** When the snapshot was captured (null for live runs). */
  snapshotTakenAt: string | null;
  /** How FlyingFish was run (null: not recorded, e.g. a library call). */
  invocation: Invocation | null;
  /** The clusters read, local first. */
  clusters: ClusterInfo[];
  /** The peers (ForeignClusters) of each cluster read. */
  peers: PeerInfo[];
  /** One result per check instance, in catalog order. */
  results: ReportResult[];
  /** The first broken link and the other root failures (null: no failure). */
  diagnosis: ReportDiagnosis | null;
  /** Status counts. */
  summary: ReportSummary;
  /** 0 pass, 1 warnings/unknown, 2 failure, 3 tool error. */
  exitCode: number;
  /** Duration of the run in milliseconds. */
  durationMs: number;
  /** The peering dump (null: no peering to dump — none yet, or a preflight — or it could not be built). */
  peering: PeeringDump | null;
  /** Values and commands to test the peering by hand (empty in a preflight: no peering yet). */
  cheatSheet: CheatSheetEntry[];
  /** Report sections built from partial data, and why (a kind they read was unreadable). */
  incomplete: ReportGap[];
  /** The active probe run (`probe`, `check --active`); absent or null for passive runs. */
  active?: ActiveRunRecord | null;
  /** `flyingfish preflight`: the verdict and the `liqoctl peer` line (a versioned block); absent otherwise. */
  preflight?: PreflightBlock;
  /**
   * Set when the run did not finish (a signal, `--timeout`): its results are what it had measured,
   * not a verdict, and `exitCode` is the process's (130, 3). Absent: the run ran to its end.
   */
  stopped?: RunStop;
  /**
   * `watch` and `serve`: what changed since the last healthy round (`flyingfish diff` of that round
   * and this one), set on a round with a failure once a healthy round was seen. Absent otherwise.
   */
  changedSinceHealthy?: DiffReport;
}

/** Why a run did not finish. */
export interface RunStop {
  /** What stopped it: a signal, or the run's `--timeout`. */
  by: "SIGINT" | "SIGTERM" | "timeout";
  /** One line saying so, and what became of the probe objects. */
  message: string;
}

/** A report section that could not be built from complete data. */
export interface ReportGap {
  /** The section. */
  section: ReportSection;
  /** Why it is incomplete. */
  reason: string;
}

/** The report sections built beside the check results. */
export type ReportSection = "peering" | "cheat-sheet";

const SKIP_KINDS: readonly [SkipKind, ...SkipKind[]] = [
  "needs-remote",
  "blocked",
  "not-applicable",
  "disabled",
];

const remediationSchema = z.array(ReportStepSchema).describe(
  "The fix, as steps in order: commands to run (each naming the cluster it runs against when the " +
    "report knows how the user reached it) and the comments that annotate them; [] when there is none",
);

/** Zod schema of one check result (`CheckResult` of checks/types.ts, remediation as steps). */
export const CheckResultSchema: z.ZodType<ReportResult> = z.object({
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
  remediation: remediationSchema,
  blockedBy: z.string().nullable().describe("ID of the failed check that kept this one from running"),
  skipKind: z.enum(SKIP_KINDS).nullable().describe(
    "For skips, why: needs-remote (a dual check without --remote-kubeconfig), blocked (see blockedBy), " +
      "not-applicable, disabled (turned off, or impossible offline)",
  ),
  durationMs: z.number().nonnegative(),
  decidedBy: z.string().optional().describe(
    "The input check whose result decided this verdict (FAB-03 failed by PROBE-MATRIX in an active run); " +
      "absent when the check's own reads decided",
  ),
});

/** Zod schema of {@link ClusterInfo}. */
export const ClusterInfoSchema: z.ZodType<ClusterInfo> = z.object({
  name: z.string().describe("Display name: the Liqo cluster ID when known, else the kubeconfig context"),
  clusterId: z.string().nullable(),
  context: z.string(),
  server: z.string(),
  role: z.enum(["local", "remote"]),
  liqoNamespace: z.string().nullable(),
  liqoVersion: z.string().nullable(),
  serverVersion: z.string().nullable().optional().describe(
    "Kubernetes version the API server reports (/version gitVersion); null or absent: unknown",
  ),
  liqoUnreadable: z.string().optional().describe(
    "Why Liqo's installation could not be read (the Deployments that locate it: kind and status); absent " +
      "when it was looked for. With it, a null liqoNamespace/liqoVersion means unknown, not absent",
  ),
});

/** Zod schema of {@link PeerInfo}. */
export const PeerInfoSchema: z.ZodType<PeerInfo> = z.object({
  cluster: z.string().describe("Cluster that holds the ForeignCluster"),
  clusterId: z.string().describe("Remote cluster ID (spec.clusterID)"),
  role: z.string().describe("ForeignCluster status.role"),
  tenantNamespace: z.string().nullable(),
});

/** Zod schema of {@link AlsoFailing}. */
export const AlsoFailingSchema: z.ZodType<AlsoFailing> = z.object({
  id: z.string(),
  layer: z.enum(LAYERS),
  peer: z.string().nullable(),
  cluster: z.string(),
  summary: z.string(),
});

/** Zod schema of {@link ReportDiagnosis}. */
export const DiagnosisSchema: z.ZodType<ReportDiagnosis> = z.object({
  id: z.string(),
  layer: z.enum(LAYERS),
  peer: z.string().nullable(),
  cluster: z.string(),
  summary: z.string(),
  remediation: remediationSchema,
  alsoFailing: z.array(AlsoFailingSchema).optional().describe(
    "The other root failures, in dependency order: failing checks the diagnosis does not explain " +
      "(not on its dependency chain, not the same link seen from the other end), so fixing the " +
      "diagnosed link is not the end of the story. Empty when the diagnosis is the only fault; " +
      "absent in reports written before it was added",
  ),
});

/** Zod schema of {@link ReportSummary}. */
export const SummarySchema: z.ZodType<ReportSummary> = z.object({
  pass: z.int().nonnegative(),
  warn: z.int().nonnegative(),
  fail: z.int().nonnegative(),
  skip: z.int().nonnegative(),
  unknown: z.int().nonnegative(),
  total: z.int().nonnegative(),
});

/** Zod schema of {@link ModuleCondition}. */
export const ModuleConditionSchema: z.ZodType<ModuleCondition> = z.object({
  type: z.string(),
  status: z.string(),
  since: z.string().nullable().describe(
    "How long the condition has held (from lastTransitionTime), if known",
  ),
});

/** Zod schema of {@link ForeignClusterRow}. */
export const ForeignClusterRowSchema: z.ZodType<ForeignClusterRow> = z.object({
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

/** Zod schema of {@link DumpTable}. */
export const DumpTableSchema: z.ZodType<DumpTable> = z.object({
  title: z.string(),
  columns: z.array(z.string()),
  rows: z.array(z.array(z.string())),
});

/** Zod schema of {@link PeeringDump}. */
export const PeeringDumpSchema: z.ZodType<PeeringDump> = z.object({
  foreignClusters: z.array(ForeignClusterRowSchema),
  tables: z.array(DumpTableSchema).describe(
    "ResourceSlices, Identities, Tenants, NamespaceOffloadings, virtual nodes — one table each",
  ),
});

/** Zod schema of {@link CheatSheetEntry}. */
export const CheatSheetEntrySchema: z.ZodType<CheatSheetEntry> = z.object({
  title: z.string(),
  value: z.string().describe("The concrete IP, port, CIDR or MTU discovered"),
  command: z.string().nullable().describe("A ready-to-paste command"),
  cluster: z.string().nullable(),
  peer: z.string().nullable(),
});

/** Zod schema of {@link ReportGap}. */
export const ReportGapSchema: z.ZodType<ReportGap> = z.object({
  section: z.enum(["peering", "cheat-sheet"]),
  reason: z.string(),
});

const reportObject = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  tool: z.object({ name: z.literal("flyingfish"), version: z.string() }),
  generatedAt: z.iso.datetime({ offset: true }).describe("RFC 3339"),
  mode: z.enum(["live", "snapshot"]),
  snapshotTakenAt: z.string().nullable(),
  invocation: InvocationSchema.nullable().describe("How FlyingFish was run (null: not recorded)"),
  clusters: z.array(ClusterInfoSchema),
  peers: z.array(PeerInfoSchema),
  results: z.array(CheckResultSchema),
  diagnosis: DiagnosisSchema.nullable(),
  summary: SummarySchema,
  exitCode: z.int().min(0).max(3).describe("0 pass, 1 warnings/unknown, 2 failure, 3 tool error"),
  durationMs: z.number().nonnegative(),
  peering: PeeringDumpSchema.nullable().describe(
    "The peering dump; null when there is no peering to dump (none yet, or a preflight) or it could not be built",
  ),
  cheatSheet: z.array(CheatSheetEntrySchema).describe(
    "Values and commands to test the peering by hand; empty in a preflight (no peering yet)",
  ),
  incomplete: z.array(ReportGapSchema).describe(
    "Report sections built from partial data (a kind they read was forbidden or unreadable), and why",
  ),
  stopped: z.object({
    by: z.enum(["SIGINT", "SIGTERM", "timeout"]),
    message: z.string(),
  }).optional().describe(
    "Set when the run did not finish (a signal, --timeout): the results are what it had measured, not a " +
      "verdict, and exitCode is the process's (130 after a signal, 3 after --timeout)",
  ),
  active: ActiveRunRecordSchema.nullable().optional().describe(
    "The active probe run (flyingfish probe, check --active): run id, mode, peer, the objects it " +
      "created and what became of them, excluded nodes, images, the reachability matrix; absent for passive runs",
  ),
  preflight: PreflightBlockSchema.optional().describe(
    "flyingfish preflight: can the two clusters peer (verdict), on what (blockers, changes, undecided), and the " +
      "liqoctl peer line that fits what was found; its own `version`; absent for other commands",
  ),
  changedSinceHealthy: DiffReportSchema.optional().describe(
    "watch and serve: what changed since the last healthy round (the flyingfish diff document), on a round " +
      "with a failure once a healthy round was seen; absent otherwise",
  ),
}).meta({
  title: "FlyingFish report",
  description: "Result of a flyingfish check run (Liqo inter-cluster connectivity diagnosis)",
});

/** The whole report document (`flyingfish check -o json`). */
export const ReportSchema: z.ZodType<Report> = reportObject;

/** Top-level keys of the report, in schema (output) order. */
export const REPORT_KEYS: readonly string[] = Object.keys(reportObject.shape);

/** The schema of each top-level key (report/views.ts puts the report in order piece by piece). */
export const REPORT_SHAPE: Readonly<Record<string, z.ZodType>> = reportObject.shape;

// Compile-time guard: the zod schema and the hand-written Report interface stay in step.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _reportShapeMatches: Same<z.infer<typeof reportObject>, Report> = true;
void _reportShapeMatches;

/** The JSON Schema (draft 2020-12) of the report, generated from `ReportSchema`. */
export function jsonSchema(): Record<string, unknown> {
  return {
    $id: `https://flyingfish.dev/schema/report-v${SCHEMA_VERSION}.json`,
    ...z.toJSONSchema(ReportSchema, { target: "draft-2020-12" }),
  };
}
