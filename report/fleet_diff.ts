/**
 * The shape of `flyingfish diff` between two fleets (fleet bundles of `collect --all-contexts`, or
 * one and the live fleet): the clusters matched by Liqo cluster ID, the edges by their two ends,
 * and for each edge on both sides the single diff document of report/diff_schema.ts, unchanged.
 * Versioned on its own; additions bump nothing, renames, removals and type changes bump
 * {@link FLEET_DIFF_SCHEMA_VERSION}.
 */
import { z } from "zod";
import { type DiffReport, DiffReportSchema } from "./diff_schema.ts";
import { EDGE_CLASSES, EDGE_VERDICTS, type EdgeClass, type EdgeVerdict } from "./fleet.ts";

/** Version of the fleet diff document shape. */
export const FLEET_DIFF_SCHEMA_VERSION = "1";

/** Whether a cluster or an edge is on both sides, or on one only. */
export type FleetDiffChange = "kept" | "added" | "removed";

/** One side of the fleet comparison. */
export interface FleetDiffSide {
  /** The bundle path, or `live:<selection>`. */
  label: string;
  mode: "snapshot" | "live";
  /** When the side was read (RFC 3339). */
  takenAt: string;
  /** The fleet's own verdict on that side (check --all-contexts's exit code). */
  exitCode: number;
}

/** A cluster as one side saw it. */
export interface FleetDiffClusterState {
  /** The context that read it (null: none could). */
  context: string | null;
  /** Why it could not be read (null: read). */
  error: string | null;
  liqoVersion: string | null;
  serverVersion: string | null;
}

/** A cluster of either fleet. */
export interface FleetDiffCluster {
  /** The fleet's name of it (the Liqo cluster ID when known). */
  name: string;
  clusterId: string | null;
  change: FleetDiffChange;
  before: FleetDiffClusterState | null;
  after: FleetDiffClusterState | null;
  /** A cluster on no edge is judged alone: the diff of those two runs (null: not alone on both sides). */
  diff: DiffReport | null;
  /** 0 nothing that matters changed, 1 changed, 2 a check newly fails. */
  exitCode: 0 | 1 | 2;
}

/** An edge as one side saw it. */
export interface FleetDiffEdgeState {
  /** The edge's key on that side (`consumer→provider`, `a⇄b`, …). */
  id: string;
  class: EdgeClass;
  verdict: EdgeVerdict;
  /** The first broken link's ID (a check, FLEET-ASYM, FLEET-ORPHAN), or null. */
  firstBroken: string | null;
  /** The first broken link's summary, or null. */
  summary: string | null;
}

/** An edge of either fleet, matched by its two ends. */
export interface FleetDiffEdge {
  /** The newer side's key (the older one's when the edge is gone). */
  id: string;
  /** Its two ends (fleet cluster names or a bare cluster ID). */
  ends: [string, string];
  change: FleetDiffChange;
  before: FleetDiffEdgeState | null;
  after: FleetDiffEdgeState | null;
  /** The diff of the edge's two engine runs (null: the edge has a run on one side only, or none). */
  diff: DiffReport | null;
  /** What changed on the edge besides its runs (its class, the fleet's own finding). */
  changes: string[];
  /** 0 nothing that matters changed, 1 changed, 2 a check (or the fleet's finding) newly fails. */
  exitCode: 0 | 1 | 2;
}

/** The counts. */
export interface FleetDiffSummary {
  edges: number;
  /** Edges with a change that matters (exit 1 or 2). */
  changed: number;
  /** Edges with a newly failing check or finding (exit 2). */
  newlyFailing: number;
  edgesAdded: number;
  edgesRemoved: number;
  clustersAdded: number;
  clustersRemoved: number;
}

/** The fleet diff document (`flyingfish diff FLEET_BEFORE FLEET_AFTER -o json`). */
export interface FleetDiffReport {
  schemaVersion: string;
  kind: "flyingfish-fleet-diff";
  tool: { name: string; version: string };
  generatedAt: string;
  before: FleetDiffSide;
  after: FleetDiffSide;
  /** Every cluster of either side, by name. */
  clusters: FleetDiffCluster[];
  /** Every edge of either side: the worst first, then by key. */
  edges: FleetDiffEdge[];
  notes: string[];
  summary: FleetDiffSummary;
  /** The worst over edges and clusters. */
  exitCode: 0 | 1 | 2;
}

const exit = z.union([z.literal(0), z.literal(1), z.literal(2)]);
const change = z.enum(["kept", "added", "removed"]);
const side = z.object({
  label: z.string(),
  mode: z.enum(["snapshot", "live"]),
  takenAt: z.string(),
  exitCode: z.number().int(),
});
const clusterState = z.object({
  context: z.string().nullable(),
  error: z.string().nullable(),
  liqoVersion: z.string().nullable(),
  serverVersion: z.string().nullable(),
});
const edgeState = z.object({
  id: z.string(),
  class: z.enum(EDGE_CLASSES),
  verdict: z.enum(EDGE_VERDICTS),
  firstBroken: z.string().nullable(),
  summary: z.string().nullable(),
});
const count = z.number().int().nonnegative();

const fleetDiffObject = z.object({
  schemaVersion: z.string(),
  kind: z.literal("flyingfish-fleet-diff"),
  tool: z.object({ name: z.string(), version: z.string() }),
  generatedAt: z.string(),
  before: side,
  after: side,
  clusters: z.array(z.object({
    name: z.string(),
    clusterId: z.string().nullable(),
    change,
    before: clusterState.nullable(),
    after: clusterState.nullable(),
    diff: DiffReportSchema.nullable(),
    exitCode: exit,
  })),
  edges: z.array(z.object({
    id: z.string(),
    ends: z.tuple([z.string(), z.string()]),
    change,
    before: edgeState.nullable(),
    after: edgeState.nullable(),
    diff: DiffReportSchema.nullable(),
    changes: z.array(z.string()),
    exitCode: exit,
  })),
  notes: z.array(z.string()),
  summary: z.object({
    edges: count,
    changed: count,
    newlyFailing: count,
    edgesAdded: count,
    edgesRemoved: count,
    clustersAdded: count,
    clustersRemoved: count,
  }),
  exitCode: exit,
}).meta({
  title: "FlyingFish fleet diff",
  description: "What changed between two FlyingFish fleet runs, per cluster and per edge (flyingfish diff)",
});

/** The whole fleet diff document. */
export const FleetDiffReportSchema: z.ZodType<FleetDiffReport> = fleetDiffObject;

// Compile-time guard: the zod schema and the interface stay in step.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _fleetDiffShapeMatches: Same<z.infer<typeof fleetDiffObject>, FleetDiffReport> = true;
void _fleetDiffShapeMatches;

/** The JSON Schema (draft 2020-12) of the fleet diff document (`flyingfish schema --diff --fleet`). */
export function fleetDiffJsonSchema(): Record<string, unknown> {
  return {
    $id: `https://flyingfish.dev/schema/fleet-diff-v${FLEET_DIFF_SCHEMA_VERSION}.json`,
    ...z.toJSONSchema(FleetDiffReportSchema, { target: "draft-2020-12" }),
  };
}
