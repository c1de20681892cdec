/**
 * `flyingfish diff`'s one pure function: two sides (each a report of the same engine and the objects
 * it read) in, the diff document out — transitions and the answer first, then the answer's reads'
 * object changes, then the other changes grouped by layer, the readings apart, and the exit code:
 * 0 nothing that matters changed, 1 something changed but nothing newly fails, 2 a check newly fails.
 */
import type { CheckDef } from "../checks/types.ts";
import { LAYERS } from "../report/model.ts";
import { KINDS } from "../kube/kinds.ts";
import { DIFF_SCHEMA_VERSION, type DiffReport, type DiffSide } from "../report/diff_schema.ts";
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

/** Compares two sides; `catalog` is the one the reports were made with (dependency graph, reads). */
export function diffSides(
  before: SideCapture,
  after: SideCapture,
  catalog: readonly CheckDef[],
  now: Date = new Date(),
): DiffReport {
  const { transitions, answer } = diffResults(before.report, after.report, catalog);
  const notes: string[] = [];
  const objects = [];
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
  for (const o of objects) o.answerReads = answer !== null && answer.reads.includes(kindIdOf(o.kind) ?? "");
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
