/**
 * The published shape of `flyingfish diff`: what changed between two diagnoses (a bundle or a live
 * read on each side), check results first, then the objects behind them. `DiffReportSchema` is the
 * source of truth; schema/diff.v1.schema.json ships {@link diffJsonSchema}. Field names are stable;
 * additions bump nothing, renames, removals and type changes bump {@link DIFF_SCHEMA_VERSION}.
 */
import { z } from "zod";
import { type Layer, LAYERS, type Status } from "../checks/types.ts";
import { type ReportStep, ReportStepSchema } from "./remediation.ts";

/** Version of the diff document shape. */
export const DIFF_SCHEMA_VERSION = "1";

/** Which cluster of a side a row speaks for: by role, so a bundle and a live read line up. */
export type DiffCluster = "local" | "remote" | "both";

/** One side of the comparison. */
export interface DiffSide {
  /** What the user named: the bundle path, or `live:<context>`. */
  label: string;
  /** `snapshot`: a collect bundle; `live`: read now (redacted like collect). */
  mode: "snapshot" | "live";
  /** When the side was read (RFC 3339). */
  takenAt: string;
  /** The side's clusters: role, display name and versions. */
  clusters: {
    role: "local" | "remote";
    name: string;
    liqoVersion: string | null;
    serverVersion: string | null;
  }[];
  /** The side's own verdict (check's exit-code rule). */
  exitCode: number;
  /** The side's own diagnosis (check ID), or null. */
  diagnosis: string | null;
}

/** Which check result a transition or the answer is: the check, its cluster and peer. */
export interface DiffCheckRef {
  /** Check ID, e.g. `GW-02`. */
  id: string;
  /** One-line title of the check. */
  title: string;
  /** Layer of the check. */
  layer: Layer;
  /** Which cluster the result speaks for. */
  cluster: DiffCluster;
  /** Remote cluster ID of the peer; null for a cluster-wide check. */
  peer: string | null;
}

/** A check whose status differs between the sides. */
export interface DiffTransition extends DiffCheckRef {
  /** Status before (null: the check did not run before). */
  from: Status | null;
  /** Status after (null: the check does not run any more). */
  to: Status | null;
  /** The newer summary (the older one when the check is gone). */
  summary: string;
  /** `newly-failing`, `fixed` (fail → other), `new-unknown`, or `changed`. */
  kind: "newly-failing" | "fixed" | "new-unknown" | "changed";
  /** The answer's check ID when this transition follows from it (the diagnosis's logic); else null. */
  downstreamOf: string | null;
}

/** The earliest newly failing check in dependency order: what broke. */
export interface DiffAnswer extends DiffCheckRef {
  /** Its status before (null: it did not run). */
  from: Status | null;
  /** Its summary now. */
  summary: string;
  /** The fix, as steps naming their cluster. */
  remediation: ReportStep[];
  /** The kinds the check reads (its declaration): their changes are listed first. */
  reads: string[];
  /** Other newly failing checks the answer does not explain (other roots, in dependency order). */
  alsoNewlyFailing: { id: string; cluster: DiffCluster; peer: string | null; summary: string }[];
}

/** One field that differs (values normalised and printed; key material only as fingerprints). */
export interface DiffField {
  /** Path in the normalised object, e.g. `spec.endpoint.addresses` or `status.conditions[Ready].status`. */
  path: string;
  /** What the field is in Liqo's terms (`gateway endpoint address`, `MTU`, …); null when generic. */
  label: string | null;
  /** Printed value before (null: absent). */
  before: string | null;
  /** Printed value after (null: absent). */
  after: string | null;
}

/** One object that was added, removed or changed. */
export interface DiffObjectChange {
  /** Which cluster of the side the object is in. */
  cluster: "local" | "remote";
  /** Kubernetes kind, e.g. `GatewayServer`. */
  kind: string;
  /** Namespace (null: cluster-scoped). */
  namespace: string | null;
  /** Object name (the newer side's). */
  name: string;
  /** `added`, `removed` or `modified`. */
  change: "added" | "removed" | "modified";
  /** The layer the kind belongs to. */
  layer: Layer;
  /** True when the answer's check reads this kind (listed first). */
  answerReads: boolean;
  /** What the change is, in one line (Liqo-aware for the keys it knows). */
  summary: string;
  /** The fields that differ (modified objects; empty for added/removed). */
  fields: DiffField[];
}

/** A reading that moves on its own (WireGuard handshakes and counters, restarts, latency): shown, never counted. */
export interface DiffReading {
  /** Which cluster of the side it was read on. */
  cluster: "local" | "remote";
  /** What it is read from, e.g. `pod liqo-tenant-x/gw-x` or `Connection liqo-tenant-x/gw-x`. */
  subject: string;
  /** What the reading is, e.g. `latest handshake`, `restarts`, `latency`, `recreated`. */
  what: string;
  /** Value before (null: none). */
  before: string | null;
  /** Value after (null: none). */
  after: string | null;
}

/** Counts of the diff. */
export interface DiffSummary {
  /** Checks whose status differs. */
  transitions: number;
  /** Transitions to `fail`. */
  newlyFailing: number;
  /** Transitions from `fail`. */
  fixed: number;
  /** Transitions to `unknown`. */
  newUnknown: number;
  /** Objects added, removed or modified (versions included). */
  objectsChanged: number;
  /** Readings that moved. */
  readings: number;
}

/** The diff document (`flyingfish diff -o json`). */
export interface DiffReport {
  /** Version of the document shape ({@link DIFF_SCHEMA_VERSION}). */
  schemaVersion: string;
  /** Always `flyingfish-diff`. */
  kind: "flyingfish-diff";
  /** The tool that wrote it. */
  tool: { name: string; version: string };
  /** When the diff was made (RFC 3339). */
  generatedAt: string;
  /** The earlier side. */
  before: DiffSide;
  /** The later side. */
  after: DiffSide;
  /** The earliest newly failing check, or null when nothing newly fails. */
  answer: DiffAnswer | null;
  /** Every check whose status differs, in the newer side's (dependency) order. */
  transitions: DiffTransition[];
  /** The answer's reads first, then the other changes by layer. */
  objects: DiffObjectChange[];
  /** Readings that move by themselves: shown, never counted. */
  readings: DiffReading[];
  /** What the comparison could not see (a kind unreadable on one side, bounds reached). */
  notes: string[];
  /** Counts. */
  summary: DiffSummary;
  /** 0 nothing that matters changed, 1 changes but nothing newly fails, 2 a check newly fails. */
  exitCode: 0 | 1 | 2;
}

const layer = z.enum(LAYERS);
const status = z.enum(["pass", "warn", "fail", "skip", "unknown"] satisfies Status[]);
const cluster = z.enum(["local", "remote"]);

const DiffSideSchema: z.ZodType<DiffSide> = z.object({
  label: z.string(),
  mode: z.enum(["snapshot", "live"]),
  takenAt: z.string(),
  clusters: z.array(z.object({
    role: cluster,
    name: z.string(),
    liqoVersion: z.string().nullable(),
    serverVersion: z.string().nullable(),
  })),
  exitCode: z.number().int(),
  diagnosis: z.string().nullable(),
});

const DiffTransitionSchema: z.ZodType<DiffTransition> = z.object({
  id: z.string(),
  title: z.string(),
  layer,
  cluster: z.enum(["local", "remote", "both"]),
  peer: z.string().nullable(),
  from: status.nullable(),
  to: status.nullable(),
  summary: z.string(),
  kind: z.enum(["newly-failing", "fixed", "new-unknown", "changed"]),
  downstreamOf: z.string().nullable(),
});

const DiffAnswerSchema: z.ZodType<DiffAnswer> = z.object({
  id: z.string(),
  title: z.string(),
  layer,
  cluster: z.enum(["local", "remote", "both"]),
  peer: z.string().nullable(),
  from: status.nullable(),
  summary: z.string(),
  remediation: z.array(ReportStepSchema),
  reads: z.array(z.string()),
  alsoNewlyFailing: z.array(z.object({
    id: z.string(),
    cluster: z.enum(["local", "remote", "both"]),
    peer: z.string().nullable(),
    summary: z.string(),
  })),
});

const DiffFieldSchema: z.ZodType<DiffField> = z.object({
  path: z.string(),
  label: z.string().nullable(),
  before: z.string().nullable(),
  after: z.string().nullable(),
});

const DiffObjectChangeSchema: z.ZodType<DiffObjectChange> = z.object({
  cluster,
  kind: z.string(),
  namespace: z.string().nullable(),
  name: z.string(),
  change: z.enum(["added", "removed", "modified"]),
  layer,
  answerReads: z.boolean(),
  summary: z.string(),
  fields: z.array(DiffFieldSchema),
});

const DiffReadingSchema: z.ZodType<DiffReading> = z.object({
  cluster,
  subject: z.string(),
  what: z.string(),
  before: z.string().nullable(),
  after: z.string().nullable(),
});

const count = z.number().int().nonnegative();

const diffObject = z.object({
  schemaVersion: z.string(),
  kind: z.literal("flyingfish-diff"),
  tool: z.object({ name: z.string(), version: z.string() }),
  generatedAt: z.string(),
  before: DiffSideSchema,
  after: DiffSideSchema,
  answer: DiffAnswerSchema.nullable(),
  transitions: z.array(DiffTransitionSchema),
  objects: z.array(DiffObjectChangeSchema),
  readings: z.array(DiffReadingSchema),
  notes: z.array(z.string()),
  summary: z.object({
    transitions: count,
    newlyFailing: count,
    fixed: count,
    newUnknown: count,
    objectsChanged: count,
    readings: count,
  }),
  exitCode: z.union([z.literal(0), z.literal(1), z.literal(2)]),
}).meta({
  title: "FlyingFish diff",
  description: "What changed between two FlyingFish diagnoses of a Liqo peering (flyingfish diff)",
});

/** The whole diff document. */
export const DiffReportSchema: z.ZodType<DiffReport> = diffObject;

// Compile-time guard: the zod schema and the interface stay in step.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _diffShapeMatches: Same<z.infer<typeof diffObject>, DiffReport> = true;
void _diffShapeMatches;

/** The JSON Schema (draft 2020-12) of the diff document, generated from {@link DiffReportSchema}. */
export function diffJsonSchema(): Record<string, unknown> {
  return {
    $id: `https://flyingfish.dev/schema/diff-v${DIFF_SCHEMA_VERSION}.json`,
    ...z.toJSONSchema(DiffReportSchema, { target: "draft-2020-12" }),
  };
}
