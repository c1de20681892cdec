/**
 * Dual mode: the two ends of each peering. Each local peer is paired with the remote cluster's
 * ForeignCluster for the local cluster, when the two clusters are in fact peered with each other.
 */
import type { PeerPair } from "../checks/engine.ts";
import type { ClusterView, PeerView } from "../checks/types.ts";
import { readProblem } from "../checks/engine.ts";
import type { KindId } from "../kube/kinds.ts";
import { peersOf } from "./views.ts";
import { isVirtualNode } from "../liqo/lookups.ts";

/**
 * Two views with one cluster ID that are nonetheless two clusters: their (non-virtual) node names are
 * disjoint. Liqo derives nothing from the ID's uniqueness and liqoctl defaults it to the cloud
 * cluster name (`pkg/liqoctl/install/eks/provider.go`), so same-named clusters collide. Null when they
 * share a node or the nodes are unreadable (then they are taken for one cluster, as before).
 */
export function distinctClusters(a: ClusterView, b: ClusterView): string | null {
  const names = (v: ClusterView) =>
    (v.inv.tryItems("nodes") ?? []).filter((n) => !isVirtualNode(n)).map((n) => n.metadata.name);
  const na = names(a), nb = names(b);
  if (na.length === 0 || nb.length === 0 || na.some((n) => nb.includes(n))) return null;
  return `no node in common: ${na.slice(0, 2).join(", ")}… vs ${nb.slice(0, 2).join(", ")}…`;
}

/** Pairs each local peer with the remote cluster's ForeignCluster for the local cluster. */
export function pairPeers(
  local: ClusterView,
  localPeers: readonly PeerView[],
  remote: ClusterView,
): { pairs: Map<string, PeerPair>; remotePeers: PeerView[]; problem?: string } {
  const pairs = new Map<string, PeerPair>();
  if (local.clusterId && local.clusterId === remote.clusterId) {
    const two = distinctClusters(local, remote);
    return {
      pairs,
      remotePeers: [],
      problem: two
        ? `--kubeconfig and --remote-kubeconfig reach two different clusters (${two}) that share the cluster ID ` +
          `${local.clusterId}: a cluster ID collision (see FC-01); the dual checks cannot tell them apart`
        : `--kubeconfig and --remote-kubeconfig point at the same cluster (${local.clusterId})`,
    };
  }
  const remoteAll = peersOf(remote);
  const remoteForLocal = remoteAll.find((p) => local.clusterId !== null && p.clusterId === local.clusterId) ??
    null;
  const localForRemote = localPeers.find((p) =>
    remote.clusterId !== null && p.clusterId === remote.clusterId
  );
  for (const p of localPeers) {
    pairs.set(p.clusterId, { local: p, remote: p === localForRemote ? remoteForLocal : null });
  }
  if (!localForRemote || !remoteForLocal) {
    // "Not peered" only when every locator it rests on was read: an unknown cluster ID or an
    // unreadable ForeignCluster list on the side that lacks the peer leaves the pairing unknown.
    const unsure = !localForRemote
      ? locatorProblem(remote, "configmaps", remote.clusterId) ?? locatorProblem(local, "foreignclusters")
      : locatorProblem(local, "configmaps", local.clusterId) ?? locatorProblem(remote, "foreignclusters");
    if (unsure) {
      return {
        pairs,
        remotePeers: remoteAll,
        problem: `cannot tell whether the two clusters are peered with each other: ${unsure}`,
      };
    }
    const why = !localForRemote
      ? `${local.name} has no ForeignCluster for ${remote.clusterId ?? remote.name}`
      : `${remote.name} has no ForeignCluster for ${local.clusterId ?? local.name}`;
    return {
      pairs,
      remotePeers: remoteAll,
      problem: `the two clusters are not peered with each other: ${why}`,
    };
  }
  return { pairs, remotePeers: remoteAll };
}

/**
 * Why a locator of `view` is unknown: its kind (the cluster-ID ConfigMap's configmaps, the
 * foreignclusters) could not be read — for the cluster ID only when the ID itself was not found.
 */
function locatorProblem(view: ClusterView, kind: KindId, found: string | null = null): string | null {
  if (found !== null) return null;
  const s = view.inv.state(kind).state;
  return s === "forbidden" || s === "error" ? readProblem(view, kind) : null;
}
