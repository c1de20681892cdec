/**
 * Reading the clusters: which kinds a run lists (the union of what the checks and the report
 * sections declare), one ClusterView per cluster, and its peers.
 */
import { Inventory } from "../kube/inventory.ts";
import type { KindId } from "../kube/kinds.ts";
import type { ClusterSource } from "../kube/source.ts";
import { Objects } from "../liqo/views/mod.ts";
import { clusterIdOf, liqoNamespaceOf, tenantNamespaceOf } from "../liqo/lookups.ts";
import type { CheckDef, ClusterView, PeerView } from "../checks/types.ts";
import { PEERING_DUMP_READS } from "../report/peering.ts";
import { CHEAT_SHEET_READS } from "../report/cheatsheet.ts";

/** Kinds always read: identity, peers, and Liqo's namespace. */
const ALWAYS: readonly KindId[] = ["configmaps", "deployments", "foreignclusters", "namespaces", "pods"];

/** The inventory kinds a catalog needs. */
export function kindsFor(catalog: readonly CheckDef[]): Set<KindId> {
  const kinds = new Set<KindId>(ALWAYS);
  for (const c of catalog) for (const k of [...c.reads, ...(c.optionalReads ?? [])]) kinds.add(k);
  // The report sections declare their reads like checks do.
  for (const k of [...PEERING_DUMP_READS, ...CHEAT_SHEET_READS]) kinds.add(k);
  return kinds;
}

/** Reads one cluster into a ClusterView. */
export async function loadView(source: ClusterSource, kinds: Set<KindId>): Promise<ClusterView> {
  const inv = new Objects(await Inventory.load(source, kinds, true));
  const clusterId = clusterIdOf(inv);
  return {
    name: clusterId ?? source.endpoint.context,
    clusterId,
    liqoNamespace: liqoNamespaceOf(inv),
    context: source.endpoint.context,
    server: source.endpoint.server,
    inv,
    now: source.now(),
    isSnapshot: source.isSnapshot,
  };
}

/** Peers of a cluster (ForeignClusters), optionally narrowed. */
export function peersOf(view: ClusterView, only?: readonly string[]): PeerView[] {
  const fcs = view.inv.tryItems("foreignclusters") ?? [];
  const all = fcs.map((fc) => ({
    clusterId: String(fc.spec?.clusterID ?? fc.metadata.name),
    foreignCluster: fc,
    tenantNamespace: tenantNamespaceOf(view.inv, fc),
  }));
  if (!only || only.length === 0) return all;
  return all.filter((p) => only.includes(p.clusterId) || only.includes(p.foreignCluster.metadata.name));
}
