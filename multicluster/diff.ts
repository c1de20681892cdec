/**
 * `flyingfish diff` between two fleets, pure: the clusters matched by Liqo cluster ID (else by the
 * fleet's name of them), the edges by their two ends, and each edge on both sides compared by
 * diff/'s one function over that edge's two engine runs — its transitions, the earliest newly
 * failing check, the objects behind it — each end's capture seen from that peering (diff/scope.ts).
 * A cluster or an edge on one side only is a change of its own; the exit code is the worst over
 * edges and clusters, by the single diff's rule.
 */
import type { CheckDef } from "../checks/types.ts";
import type { Report } from "../report/model.ts";
import type { FleetCluster, FleetEdge, FleetReport } from "../report/fleet.ts";
import {
  FLEET_DIFF_SCHEMA_VERSION,
  type FleetDiffCluster,
  type FleetDiffClusterState,
  type FleetDiffEdge,
  type FleetDiffEdgeState,
  type FleetDiffReport,
} from "../report/fleet_diff.ts";
import type { DiffReport } from "../report/diff_schema.ts";
import { VERSION } from "../version.ts";
import type { ClusterCapture, SideCapture } from "../diff/capture.ts";
import { diffSides } from "../diff/diff.ts";
import { scopedToPeer } from "../diff/scope.ts";

/** One side of a fleet diff: the fleet report and each cluster's captured objects. */
export interface FleetSide {
  /** The bundle path, or `live:<selection>`. */
  label: string;
  mode: "snapshot" | "live";
  takenAt: string;
  report: FleetReport;
  /** Captured objects per fleet cluster name. */
  captures: Map<string, ClusterCapture>;
  ipsPseudonymised?: boolean;
}

type Exit = 0 | 1 | 2;
const worst = (...codes: Exit[]): Exit => Math.max(0, ...codes) as Exit;

/** A cluster's key across sides: its Liqo cluster ID, else its fleet name. */
const clusterKey = (c: FleetCluster): string => c.clusterId ?? `\u0000${c.name}`;

/** An end's key: the cluster's key when it is in the fleet, else the bare cluster ID. */
function endKey(report: FleetReport, end: string): string {
  const c = report.clusters.find((x) => x.name === end);
  return c ? clusterKey(c) : end;
}

const edgeKey = (report: FleetReport, e: FleetEdge): string =>
  e.ends.map((end) => endKey(report, end)).sort().join("\u0000");

/** The side of one engine run of the fleet, for diff/: its report and each end's capture, scoped. */
function runSide(side: FleetSide, report: Report, ends: readonly string[]): SideCapture {
  const clusters: ClusterCapture[] = [];
  for (const rc of report.clusters) {
    const capture = side.captures.get(rc.name);
    if (!capture) continue;
    const other = ends.find((e) => e !== rc.name);
    const peer = other === undefined
      ? null
      : side.report.clusters.find((c) => c.name === other)?.clusterId ?? other;
    clusters.push({ ...(peer ? scopedToPeer(capture, peer) : capture), role: rc.role, name: rc.name });
  }
  return { label: side.label, mode: side.mode, report, clusters, ipsPseudonymised: side.ipsPseudonymised };
}

/**
 * `after` with its clusters' roles as `before` has them: an edge judged from the other end now (its
 * direction changed) still compares each cluster with itself, since diff/ matches by role.
 */
export function alignRoles(before: Report, after: Report): Report {
  const roleBefore = new Map(before.clusters.map((c) => [c.name, c.role]));
  const flipped = after.clusters.some((c) => roleBefore.has(c.name) && roleBefore.get(c.name) !== c.role);
  if (!flipped) return after;
  return {
    ...after,
    clusters: after.clusters.map((c) => ({ ...c, role: c.role === "local" ? "remote" : "local" })),
  };
}

function edgeState(e: FleetEdge): FleetDiffEdgeState {
  return {
    id: e.id,
    class: e.class,
    verdict: e.verdict,
    firstBroken: e.firstBroken?.id ?? null,
    summary: e.firstBroken?.summary ?? null,
  };
}

function clusterState(c: FleetCluster): FleetDiffClusterState {
  return { context: c.context, error: c.error, liqoVersion: c.liqoVersion, serverVersion: c.serverVersion };
}

/** What changed on an edge on both sides besides its runs, and how much it matters. */
function edgeChanges(b: FleetEdge, a: FleetEdge, diff: DiffReport | null): { changes: string[]; exit: Exit } {
  const changes: string[] = [];
  let exit: Exit = diff?.exitCode ?? 0;
  if (b.class !== a.class) changes.push(`class ${b.class} → ${a.class}: ${a.reason}`);
  const [bf, af] = [b.finding, a.finding];
  if (af && (bf?.id !== af.id || bf.status !== af.status)) {
    changes.push(`${af.id} ${bf?.id === af.id ? `${bf.status} → ` : ""}${af.status}: ${af.summary}`);
    if (af.status === "fail" && !(bf?.id === af.id && bf.status === "fail")) exit = 2;
  }
  if (bf && !af) changes.push(`${bf.id} gone (was ${bf.status}: ${bf.summary})`);
  if (diff === null && b.verdict !== a.verdict) {
    changes.push(`verdict ${b.verdict} → ${a.verdict}`);
    if (a.exitCode === 2 && b.exitCode !== 2) exit = 2;
  }
  if (diff === null && (b.report === null) !== (a.report === null)) {
    changes.push(`judged by the engine ${a.report ? "now, not before" : "before, not now"}`);
  }
  return { changes, exit: changes.length ? worst(exit, 1) : exit };
}

/** Compares two fleet sides; `catalog` is the one the fleet runs were made with. */
export function diffFleets(
  before: FleetSide,
  after: FleetSide,
  catalog: readonly CheckDef[],
  now: Date = new Date(),
): FleetDiffReport {
  const notes: string[] = [];
  const clusters: FleetDiffCluster[] = [];
  const prior = new Map(before.report.clusters.map((c) => [clusterKey(c), c]));
  const seen = new Set<string>();
  for (const a of after.report.clusters) {
    const k = clusterKey(a);
    seen.add(k);
    const b = prior.get(k);
    if (!b) {
      clusters.push({
        name: a.name,
        clusterId: a.clusterId,
        change: "added",
        before: null,
        after: clusterState(a),
        diff: null,
        exitCode: 1,
      });
      continue;
    }
    let exit: Exit = 0;
    if ((b.error === null) !== (a.error === null)) {
      notes.push(
        a.error
          ? `${a.name}: read before, not now: ${a.error}`
          : `${a.name}: could not be read before (${b.error}), read now`,
      );
      exit = 1;
    }
    // A cluster on no edge is judged alone on each side: those two runs compare like a single diff.
    const diff = b.report && a.report
      ? diffSides(runSide(before, b.report, []), runSide(after, a.report, []), catalog, now)
      : null;
    clusters.push({
      name: a.name,
      clusterId: a.clusterId,
      change: "kept",
      before: clusterState(b),
      after: clusterState(a),
      diff,
      exitCode: worst(exit, diff?.exitCode ?? 0),
    });
  }
  for (const [k, b] of prior) {
    if (seen.has(k)) continue;
    clusters.push({
      name: b.name,
      clusterId: b.clusterId,
      change: "removed",
      before: clusterState(b),
      after: null,
      diff: null,
      exitCode: 1,
    });
  }

  const edges: FleetDiffEdge[] = [];
  const priorEdges = new Map(Object.values(before.report.edges).map((e) => [edgeKey(before.report, e), e]));
  const seenEdges = new Set<string>();
  for (const a of Object.values(after.report.edges)) {
    const k = edgeKey(after.report, a);
    seenEdges.add(k);
    const b = priorEdges.get(k);
    if (!b) {
      edges.push({
        id: a.id,
        ends: a.ends,
        change: "added",
        before: null,
        after: edgeState(a),
        diff: null,
        changes: [
          `new edge (${a.class}): ${a.verdict}${a.firstBroken ? `, first broken ${a.firstBroken.id}` : ""}`,
        ],
        // An edge that was not there and fails now newly fails, as an absent check does.
        exitCode: a.exitCode === 2 ? 2 : 1,
      });
      continue;
    }
    const diff = b.report && a.report
      ? diffSides(
        runSide(before, b.report, b.ends),
        runSide(after, alignRoles(b.report, a.report), a.ends),
        catalog,
        now,
      )
      : null;
    const { changes, exit } = edgeChanges(b, a, diff);
    edges.push({
      id: a.id,
      ends: a.ends,
      change: "kept",
      before: edgeState(b),
      after: edgeState(a),
      diff,
      changes,
      exitCode: exit,
    });
  }
  for (const [k, b] of priorEdges) {
    if (seenEdges.has(k)) continue;
    edges.push({
      id: b.id,
      ends: b.ends,
      change: "removed",
      before: edgeState(b),
      after: null,
      diff: null,
      changes: [`edge gone (was ${b.class}, ${b.verdict})`],
      exitCode: 1,
    });
  }
  edges.sort((x, y) => y.exitCode - x.exitCode || x.id.localeCompare(y.id));
  const exitCode = worst(...edges.map((e) => e.exitCode), ...clusters.map((c) => c.exitCode));
  return {
    schemaVersion: FLEET_DIFF_SCHEMA_VERSION,
    kind: "flyingfish-fleet-diff",
    tool: { name: "flyingfish", version: VERSION },
    generatedAt: now.toISOString(),
    before: {
      label: before.label,
      mode: before.mode,
      takenAt: before.takenAt,
      exitCode: before.report.exitCode,
    },
    after: { label: after.label, mode: after.mode, takenAt: after.takenAt, exitCode: after.report.exitCode },
    clusters,
    edges,
    notes,
    summary: {
      edges: edges.length,
      changed: edges.filter((e) => e.exitCode > 0).length,
      newlyFailing: edges.filter((e) => e.exitCode === 2).length,
      edgesAdded: edges.filter((e) => e.change === "added").length,
      edgesRemoved: edges.filter((e) => e.change === "removed").length,
      clustersAdded: clusters.filter((c) => c.change === "added").length,
      clustersRemoved: clusters.filter((c) => c.change === "removed").length,
    },
    exitCode,
  };
}
