/**
 * The diagnosis: from the ordered results of a run, the first broken link, the other root failures
 * beside it, and the exit code. Pure functions over results and the catalog's dependency graph.
 */
import type { CheckDef, CheckResult, LAYERS } from "./types.ts";

/** Another root failure beside the diagnosis: a fault the diagnosed one does not explain. */
export interface AlsoFailing {
  /** Check ID, e.g. `IPAM-04`. */
  id: string;
  /** Layer of the check. */
  layer: (typeof LAYERS)[number];
  /** Remote cluster ID of the peer it concerns; null for a cluster-wide check. */
  peer: string | null;
  /** Cluster the check ran on (its display name). */
  cluster: string;
  /** One-line finding. */
  summary: string;
}

/** The diagnosis: the first broken link. */
export interface Diagnosis {
  /** ID of the check that is the first broken link, e.g. `GW-02`. */
  id: string;
  /** Layer of the check. */
  layer: (typeof LAYERS)[number];
  /** Remote cluster ID of the peer it concerns; null for a cluster-wide check. */
  peer: string | null;
  /** Cluster the check ran on (its display name). */
  cluster: string;
  /** One-line finding. */
  summary: string;
  /** The fix, as steps (checks/remediation.ts); empty when the check has none. */
  remediation: CheckResult["remediation"];
  /**
   * The other root failures, in dependency order: failures that neither the diagnosis nor an
   * earlier root failure explains (see {@link diagnosisOf}), so fixing the first link is not the end
   * of the story. Always set by the engine (empty when the diagnosis is the only fault).
   */
  alsoFailing?: AlsoFailing[];
}

/**
 * The first failing result in layer order (results must already be ordered), with the other root
 * failures in `alsoFailing`.
 *
 * A failure is explained by an earlier root failure — and so is not a root of its own — when it is
 * that failure's consequence in the dependency graph of `catalog` (`needs`, transitively):
 * - a cluster-wide root explains failures on its cluster of checks that need it;
 * - a per-peer root explains failures on the same peering (either end, and the dual check that
 *   compares both ends) of the same check (the two ends of one link), of checks that need it, and
 *   of checks downstream of the same per-peer link (a shared per-peer dependency: a stale client
 *   endpoint, GW-04, and the Connection, TUN-01, both sit on the advertised endpoint, GW-03 — the
 *   tunnel it keeps down is a symptom, not a second fault).
 * Without a catalog only the same check on the same peering is treated as explained.
 */
export function diagnosisOf(
  results: readonly CheckResult[],
  catalog: readonly CheckDef[] = [],
): Diagnosis | null {
  const failures = results.filter((r) => r.status === "fail");
  if (failures.length === 0) return null;
  const graph = dependencyGraph(catalog);
  const roots: CheckResult[] = [];
  // A per-peer root explains only failures on its own peering: roots are looked up by peering, so a
  // fleet of thousands of failing peers costs one pass, not one comparison per pair of failures.
  const clusterWide: CheckResult[] = [];
  const byPeering = new Map<string, CheckResult[]>();
  for (const f of failures) {
    const peering = peeringOf(f);
    const mine = peering === null ? undefined : byPeering.get(peering);
    const explained = clusterWide.some((root) => explains(root, f, graph)) ||
      (mine?.some((root) => explains(root, f, graph)) ?? false);
    if (explained) continue;
    roots.push(f);
    if (peering === null) clusterWide.push(f);
    else if (mine) mine.push(f);
    else byPeering.set(peering, [f]);
  }
  const [first, ...others] = roots;
  return {
    id: first.id,
    layer: first.layer,
    peer: first.peer,
    cluster: first.cluster,
    summary: first.summary,
    remediation: first.remediation,
    alsoFailing: others.map((r) => ({
      id: r.id,
      layer: r.layer,
      peer: r.peer,
      cluster: r.cluster,
      summary: r.summary,
    })),
  };
}

/**
 * Whether a failure follows from a root failure, by the rule {@link diagnosisOf} applies (for
 * `flyingfish diff`, which marks the transitions its answer explains). The graph is built once.
 */
export function explainer(
  catalog: readonly CheckDef[],
): (
  root: Pick<CheckResult, "id" | "cluster" | "peer">,
  f: Pick<CheckResult, "id" | "cluster" | "peer">,
) => boolean {
  const graph = dependencyGraph(catalog);
  return (root, f) => explains(root, f, graph);
}

interface DependencyGraph {
  /** Check ID → every check it needs, transitively. */
  ancestors: ReadonlyMap<string, ReadonlySet<string>>;
  /** IDs of per-peer checks. */
  perPeer: ReadonlySet<string>;
}

function dependencyGraph(catalog: readonly CheckDef[]): DependencyGraph {
  const byId = new Map(catalog.map((c) => [c.id, c]));
  const ancestors = new Map<string, Set<string>>();
  const visit = (id: string, seen: Set<string>): Set<string> => {
    const known = ancestors.get(id);
    if (known) return known;
    const out = new Set<string>();
    if (seen.has(id)) return out; // a cycle: validateCatalog reports it
    seen.add(id);
    for (const n of byId.get(id)?.needs ?? []) {
      out.add(n);
      for (const a of visit(n, seen)) out.add(a);
    }
    ancestors.set(id, out);
    return out;
  };
  for (const c of catalog) visit(c.id, new Set());
  return { ancestors, perPeer: new Set(catalog.filter((c) => c.perPeer).map((c) => c.id)) };
}

/** The clusters a result was observed on: one, or both of a dual check's "A ↔ B". */
function clustersOf(r: Pick<CheckResult, "cluster">): string[] {
  return r.cluster.split(" ↔ ");
}

/** The peering a per-peer result speaks for, as a sorted pair of cluster names (null: cluster-wide). */
function peeringOf(r: Pick<CheckResult, "cluster" | "peer">): string | null {
  if (r.peer === null) return null;
  return [clustersOf(r)[0], r.peer].sort().join(" ⇄ ");
}

/** Whether `f` is a consequence of the root failure `root` (see {@link diagnosisOf}). */
function explains(
  root: Pick<CheckResult, "id" | "cluster" | "peer">,
  f: Pick<CheckResult, "id" | "cluster" | "peer">,
  graph: DependencyGraph,
): boolean {
  const needsRoot = graph.ancestors.get(f.id)?.has(root.id) ?? false;
  const peering = peeringOf(root);
  if (peering === null) return needsRoot && clustersOf(f).some((c) => clustersOf(root).includes(c));
  if (peeringOf(f) !== peering) return false;
  if (f.id === root.id || needsRoot) return true;
  const fa = graph.ancestors.get(f.id), ra = graph.ancestors.get(root.id);
  if (!fa || !ra) return false;
  for (const a of fa) if (graph.perPeer.has(a) && ra.has(a)) return true;
  return false;
}

/** The exit code of a run's results: 2 on a failure, 1 on a warning or unknown, else 0. */
export function exitCodeOf(results: readonly Pick<CheckResult, "status">[]): 0 | 1 | 2 {
  if (results.some((r) => r.status === "fail")) return 2;
  return results.some((r) => r.status === "warn" || r.status === "unknown") ? 1 : 0;
}
