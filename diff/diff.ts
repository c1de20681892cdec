/**
 * `flyingfish diff`'s one pure function: two sides (each a report of the same engine and the objects
 * it read) in, the diff document out — transitions and the answer first, then the answer's reads'
 * object changes, then the other changes grouped by layer, the readings apart, and the exit code:
 * 0 nothing that matters changed, 1 something changed but nothing newly fails, 2 a check newly fails.
 */
import type { CheckDef } from "../checks/types.ts";
import { LAYERS } from "../report/model.ts";
import { KINDS } from "../kube/kinds.ts";
import {
  DIFF_SCHEMA_VERSION,
  type DiffField,
  type DiffObjectChange,
  type DiffReport,
  type DiffSide,
} from "../report/diff_schema.ts";
import { VERSION } from "../version.ts";
import type { SideCapture } from "./capture.ts";
import { diffResults } from "./results.ts";
import { compareCluster } from "./objects.ts";

function sideOf(s: SideCapture): DiffSide {
  return {
    label: s.label,
    mode: s.mode,
    takenAt: s.report.snapshotTakenAt ?? s.report.generatedAt,
    clusters: s.report.clusters.map((c) => ({
      role: c.role,
      name: c.name,
      liqoVersion: c.liqoVersion,
      serverVersion: c.serverVersion ?? null,
    })),
    exitCode: s.report.exitCode,
    diagnosis: s.report.diagnosis?.id ?? null,
  };
}

/**
 * The Liqo and Kubernetes versions of each cluster (the reports' `clusters[]`: the controller-manager
 * image tag and the API server's /version) as a change of the cluster itself.
 */
function versionChanges(before: SideCapture, after: SideCapture): DiffObjectChange[] {
  const out: DiffObjectChange[] = [];
  for (const a of after.report.clusters) {
    const b = before.report.clusters.find((c) => c.role === a.role);
    if (!b || a.clusterId === null || b.clusterId === null) continue;
    const fields: DiffField[] = [];
    if (b.liqoVersion !== a.liqoVersion) {
      fields.push({
        path: "liqoVersion",
        label: "Liqo version",
        before: b.liqoVersion,
        after: a.liqoVersion,
      });
    }
    const [bk, ak] = [b.serverVersion ?? null, a.serverVersion ?? null];
    if (bk !== ak && bk !== null && ak !== null) {
      fields.push({ path: "serverVersion", label: "Kubernetes version", before: bk, after: ak });
    }
    if (b.clusterId !== a.clusterId) {
      fields.push({ path: "clusterId", label: "Liqo cluster ID", before: b.clusterId, after: a.clusterId });
    }
    if (fields.length === 0) continue;
    out.push({
      cluster: a.role,
      kind: "Cluster",
      namespace: null,
      name: a.name,
      change: "modified",
      layer: "env",
      answerReads: false,
      summary: `Cluster ${a.name}: ${fields.map((f) => `${f.label} ${f.before} → ${f.after}`).join("; ")}`,
      fields,
    });
  }
  return out;
}

/** Compares two sides; `catalog` is the one the reports were made with (dependency graph, reads). */
export function diffSides(
  before: SideCapture,
  after: SideCapture,
  catalog: readonly CheckDef[],
  now: Date = new Date(),
): DiffReport {
  const { transitions, answer } = diffResults(before.report, after.report, catalog);
  const notes: string[] = [];
  const pseudonymised = [before, after].filter((s) => s.ipsPseudonymised).map((s) => s.label);
  if (pseudonymised.length) {
    notes.push(
      `IPv4 addresses were pseudonymised in ${
        pseudonymised.join(" and ")
      } (collect --redact-ips, a key of its own ` +
        "per capture): address changes listed may be the pseudonyms, not the addresses",
    );
  }
  const objects: DiffObjectChange[] = [...versionChanges(before, after)];
  const readings = [];
  for (const a of after.clusters) {
    const b = before.clusters.find((c) => c.role === a.role);
    if (!b) {
      notes.push(`${a.role}: no capture before: its objects are not compared`);
      continue;
    }
    const cmp = compareCluster(b, a);
    objects.push(...cmp.changes);
    readings.push(...cmp.readings);
    notes.push(...cmp.notes);
  }
  for (const b of before.clusters) {
    if (!after.clusters.some((c) => c.role === b.role)) {
      notes.push(`${b.role}: no capture after: its objects are not compared`);
    }
  }
  // The answer's reads first: the objects its verdict was made from.
  const kindIdOf = (kind: string) => Object.entries(KINDS).find(([, k]) => k.kind === kind)?.[0];
  for (const o of objects) {
    // The Liqo version is the controller-manager's image tag: a check reading Deployments reads it.
    const kind = o.kind === "Cluster"
      ? (o.fields.some((f) => f.path === "liqoVersion") ? "deployments" : "")
      : kindIdOf(o.kind);
    o.answerReads = answer !== null && answer.reads.includes(kind ?? "");
  }
  const layerRank = (l: string) => LAYERS.indexOf(l as typeof LAYERS[number]);
  objects.sort((x, y) =>
    Number(y.answerReads) - Number(x.answerReads) || layerRank(x.layer) - layerRank(y.layer) ||
    x.cluster.localeCompare(y.cluster) || x.kind.localeCompare(y.kind) ||
    `${x.namespace ?? ""}/${x.name}`.localeCompare(`${y.namespace ?? ""}/${y.name}`)
  );
  const newlyFailing = transitions.filter((t) => t.kind === "newly-failing").length;
  const exitCode = newlyFailing > 0 ? 2 : transitions.length > 0 || objects.length > 0 ? 1 : 0;
  return {
    schemaVersion: DIFF_SCHEMA_VERSION,
    kind: "flyingfish-diff",
    tool: { name: "flyingfish", version: VERSION },
    generatedAt: now.toISOString(),
    before: sideOf(before),
    after: sideOf(after),
    answer,
    transitions,
    objects,
    readings,
    notes,
    summary: {
      transitions: transitions.length,
      newlyFailing,
      fixed: transitions.filter((t) => t.kind === "fixed").length,
      newUnknown: transitions.filter((t) => t.kind === "new-unknown").length,
      objectsChanged: objects.length,
      readings: readings.length,
    },
    exitCode,
  };
}
