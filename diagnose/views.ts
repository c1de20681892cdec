/**
 * Reading the clusters: which kinds a run lists (the union of what the checks and the report
 * sections declare), one ClusterView per cluster, and its peers.
 */
import { Inventory } from "../kube/inventory.ts";
import type { KindId } from "../kube/kinds.ts";
import type { ClusterSource } from "../kube/source.ts";
import { type Malformed, Objects } from "../liqo/views/mod.ts";
import { type ForeignCluster, salvageForeignCluster } from "../liqo/views/peering.ts";
import { clusterIdOf, liqoNamespaceOf, REMOTE_ID_LABEL, tenantNamespaceOf } from "../liqo/lookups.ts";
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

/**
 * Peers of a cluster (ForeignClusters), optionally narrowed. A ForeignCluster that does not fit its
 * view is still a peer — kept with what can be read of it and flagged `malformed`, so its checks are
 * unknown naming the bad field — rather than silently disappearing.
 */
export function peersOf(view: ClusterView, only?: readonly string[]): PeerView[] {
  const fcs = view.inv.tryItems("foreignclusters") ?? peersFromLabels(view);
  const peer = (fc: ForeignCluster, malformed?: Malformed): PeerView => ({
    clusterId: String(fc.spec?.clusterID ?? fc.metadata.name),
    foreignCluster: fc,
    tenantNamespace: tenantNamespaceOf(view.inv, fc),
    ...(malformed ? { malformed } : {}),
  });
  const all = fcs.map((fc) => peer(fc));
  for (const { raw, malformed } of view.inv.leftOut("foreignclusters")) {
    const fc = salvageForeignCluster(raw);
    if (fc) all.push(peer(fc, malformed));
  }
  if (!only || only.length === 0) return all;
  return all.filter((p) => only.includes(p.clusterId) || only.includes(p.foreignCluster.metadata.name));
}

/** Per-peer kinds whose `liqo.io/remote-cluster-id` label names a peer. */
const PEER_LABELLED: readonly KindId[] = [
  "gatewayservers",
  "gatewayclients",
  "configurations",
  "connections",
];

/**
 * When the ForeignClusters cannot be listed, the peers are still known from the per-peer objects
 * Liqo labels with the remote cluster ID (and the tenant namespaces): each becomes a stand-in
 * ForeignCluster carrying only the ID, so the checks that do not read ForeignClusters still judge
 * that peering (the engine makes the ones that do `unknown`, naming the refusal) instead of every
 * per-peer result silently disappearing.
 */
function peersFromLabels(view: ClusterView): ForeignCluster[] {
  const ids = new Set<string>();
  for (const kind of PEER_LABELLED) {
    for (const o of view.inv.tryItems(kind) ?? []) {
      const id = o.metadata.labels?.[REMOTE_ID_LABEL];
      if (id) ids.add(id);
    }
  }
  for (const ns of view.inv.tryItems("namespaces") ?? []) {
    const id = ns.metadata.labels?.[REMOTE_ID_LABEL];
    if (id && ns.metadata.labels?.["liqo.io/tenant-namespace"] === "true") ids.add(id);
  }
  return [...ids].sort().map((id) => ({ metadata: { name: id }, spec: { clusterID: id } }));
}
