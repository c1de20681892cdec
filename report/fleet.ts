/**
 * The fleet report: what `flyingfish check --all-contexts` (or `--contexts`) prints — the clusters
 * of the kubeconfig, identified once, and every peering between them as an edge, each edge holding
 * the one-engine report of its run. Versioned on its own (`FLEET_SCHEMA_VERSION`): additions bump
 * nothing, renames, removals and type changes bump it. The per-edge `report` is the report document
 * of schema/report.v1.schema.json, unchanged.
 */
import { z } from "zod";
import { type Report, ReportSchema } from "./schema.ts";
import { type Invocation, InvocationSchema } from "./invocation.ts";

/** Version of the fleet document shape. */
export const FLEET_SCHEMA_VERSION = "1";

/** How a cluster was told apart from the others. */
export type FleetIdentity = "cluster-id" | "endpoint";

/** One cluster of the fleet (several contexts may reach it: one was used). */
export interface FleetCluster {
  /** Display name: the Liqo cluster ID when known, else the context used. */
  name: string;
  /** The Liqo cluster ID (the cluster-ID ConfigMap); null: not read or Liqo not found. */
  clusterId: string | null;
  /** `cluster-id`: told apart by its Liqo cluster ID; `endpoint`: by API server URL + CA fingerprint. */
  identity: FleetIdentity;
  /** The context whose credentials read it (null: none could). */
  context: string | null;
  /** Every selected context that reaches this cluster, the one used first. */
  contexts: string[];
  /** Why that context (only when several reach the cluster). */
  chosenBecause: string | null;
  /** The API server URL of the context used (no credentials). */
  server: string | null;
  /** `sha256:<hex>` of the CA the context trusts, `system`, `insecure` or `unreadable: …`. */
  ca: string;
  /** The cluster could not be read: the one-line tool error (as `check` alone would exit 3 with). */
  error: string | null;
  liqoVersion: string | null;
  serverVersion: string | null;
  /** Edges the cluster is an end of. */
  edges: string[];
  /** A cluster on no edge is still judged alone (its cluster-wide checks): that run's report. */
  report: Report | null;
}

/** How an edge is seen: see docs/fleet.md. */
export const EDGE_CLASSES = ["paired", "half-visible", "asymmetric", "orphan"] as const;
export type EdgeClass = typeof EDGE_CLASSES[number];

/** An edge's verdict, from its exit code. */
export const EDGE_VERDICTS = ["pass", "warn", "fail", "unknown"] as const;
export type EdgeVerdict = typeof EDGE_VERDICTS[number];

/** The first broken link of an edge (its report's diagnosis, or the edge's own finding). */
export interface EdgeBrokenLink {
  /** A check ID, or FLEET-ASYM / FLEET-ORPHAN for the fleet's own findings. */
  id: string;
  summary: string;
  /** The cluster it was seen on (null: the pair). */
  cluster: string | null;
}

/** A finding of the fleet itself (not of a check): asymmetric records, orphaned objects. */
export interface EdgeFinding {
  id: "FLEET-ASYM" | "FLEET-ORPHAN";
  status: "fail" | "warn" | "unknown";
  summary: string;
  evidence: string[];
  /** Commands that would fix it, each with the context it runs against. */
  remediation: { command: string; comment: string | null }[];
}

/** One edge: a peering (or what is left of one) between two cluster IDs. */
export interface FleetEdge {
  /** The key: `consumer→provider`, `a⇄b` (both ways), `a–b` (roles unknown), `a⇢id` (orphan). */
  id: string;
  class: EdgeClass;
  /** Why this class, in one line. */
  reason: string;
  /** The consuming end (null: the roles do not say). */
  consumer: string | null;
  /** The providing end (null: the roles do not say). */
  provider: string | null;
  /** The two ends: fleet cluster names, or a bare cluster ID outside the fleet. */
  ends: [string, string];
  /** `one-way`: consumer → provider; `both`: each consumes the other; `unknown`: no role recorded. */
  direction: "one-way" | "both" | "unknown";
  /** The network edge: which end hosts the GatewayServer and which the GatewayClient (null: none found). */
  network: { server: string | null; client: string | null };
  verdict: EdgeVerdict;
  exitCode: 0 | 1 | 2;
  firstBroken: EdgeBrokenLink | null;
  finding: EdgeFinding | null;
  /** The engine's report of this edge (dual for a paired edge, one-sided otherwise); null for an orphan. */
  report: Report | null;
}

/** The counts the summary leads with. */
export interface FleetSummary {
  clusters: number;
  unreadable: number;
  contexts: number;
  edges: number;
  byClass: Record<EdgeClass, number>;
  byVerdict: Record<EdgeVerdict, number>;
}

/** The fleet document (`flyingfish check --all-contexts -o json`). */
export interface FleetReport {
  schemaVersion: typeof FLEET_SCHEMA_VERSION;
  kind: "fleet";
  tool: { name: "flyingfish"; version: string };
  generatedAt: string;
  invocation: Invocation | null;
  /** The selected contexts, in kubeconfig order. */
  contexts: string[];
  clusters: FleetCluster[];
  /** Every edge, keyed by its id, worst verdict first. */
  edges: Record<string, FleetEdge>;
  summary: FleetSummary;
  /** Worst edge (and lone cluster) verdict; 3 only when nothing could be judged. */
  exitCode: 0 | 1 | 2 | 3;
  durationMs: number;
}

const count = z.int().min(0);
const classCounts = z.object({ paired: count, "half-visible": count, asymmetric: count, orphan: count });
const verdictCounts = z.object({ pass: count, warn: count, fail: count, unknown: count });

const FleetClusterSchema: z.ZodType<FleetCluster> = z.object({
  name: z.string(),
  clusterId: z.string().nullable(),
  identity: z.enum(["cluster-id", "endpoint"]),
  context: z.string().nullable(),
  contexts: z.array(z.string()),
  chosenBecause: z.string().nullable(),
  server: z.string().nullable(),
  ca: z.string(),
  error: z.string().nullable(),
  liqoVersion: z.string().nullable(),
  serverVersion: z.string().nullable(),
  edges: z.array(z.string()),
  report: ReportSchema.nullable(),
});

const FleetEdgeSchema: z.ZodType<FleetEdge> = z.object({
  id: z.string(),
  class: z.enum(EDGE_CLASSES),
  reason: z.string(),
  consumer: z.string().nullable(),
  provider: z.string().nullable(),
  ends: z.tuple([z.string(), z.string()]),
  direction: z.enum(["one-way", "both", "unknown"]),
  network: z.object({ server: z.string().nullable(), client: z.string().nullable() }),
  verdict: z.enum(EDGE_VERDICTS),
  exitCode: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  firstBroken: z.object({ id: z.string(), summary: z.string(), cluster: z.string().nullable() }).nullable(),
  finding: z.object({
    id: z.enum(["FLEET-ASYM", "FLEET-ORPHAN"]),
    status: z.enum(["fail", "warn", "unknown"]),
    summary: z.string(),
    evidence: z.array(z.string()),
    remediation: z.array(z.object({ command: z.string(), comment: z.string().nullable() })),
  }).nullable(),
  report: ReportSchema.nullable(),
});

const fleetObject = z.object({
  schemaVersion: z.literal(FLEET_SCHEMA_VERSION),
  kind: z.literal("fleet"),
  tool: z.object({ name: z.literal("flyingfish"), version: z.string() }),
  generatedAt: z.iso.datetime({ offset: true }).describe("RFC 3339"),
  invocation: InvocationSchema.nullable(),
  contexts: z.array(z.string()),
  clusters: z.array(FleetClusterSchema),
  edges: z.record(z.string(), FleetEdgeSchema).describe("Every edge keyed by its id, worst verdict first"),
  summary: z.object({
    clusters: z.int().min(0),
    unreadable: z.int().min(0),
    contexts: z.int().min(0),
    edges: z.int().min(0),
    byClass: classCounts,
    byVerdict: verdictCounts,
  }),
  exitCode: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]).describe(
    "worst edge verdict: 0 pass, 1 warnings/unknown, 2 failure; 3 only when no edge could be judged",
  ),
  durationMs: z.number().nonnegative(),
}).meta({
  title: "FlyingFish fleet report",
  description: "Result of a flyingfish fleet run: every cluster of the kubeconfig, every peering as an edge",
});

/** The fleet document's zod schema. */
export const FleetReportSchema: z.ZodType<FleetReport> = fleetObject;

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _fleetShapeMatches: Same<z.infer<typeof fleetObject>, FleetReport> = true;
void _fleetShapeMatches;

/** The JSON Schema (draft 2020-12) of the fleet report, shipped as schema/fleet.v1.schema.json. */
export function fleetJsonSchema(): Record<string, unknown> {
  return {
    $id: `https://flyingfish.dev/schema/fleet-v${FLEET_SCHEMA_VERSION}.json`,
    ...z.toJSONSchema(FleetReportSchema, { target: "draft-2020-12" }),
  };
}

/** The verdict an exit code stands for (1 is `warn` when a check warned, else `unknown`). */
export function verdictOf(exitCode: number, warned: boolean): EdgeVerdict {
  return exitCode === 0 ? "pass" : exitCode === 2 ? "fail" : warned ? "warn" : "unknown";
}

/** The worst of two exit codes on the 0 < 1 < 2 scale. */
export function worseExit(a: 0 | 1 | 2, b: 0 | 1 | 2): 0 | 1 | 2 {
  return a > b ? a : b;
}
