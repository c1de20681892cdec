/**
 * Dual mode: the two ends of each peering. Each local peer is paired with the remote cluster's
 * ForeignCluster for the local cluster, when the two clusters are in fact peered with each other.
 */
import type { PeerPair } from "../checks/engine.ts";
import type { ClusterView, PeerView } from "../checks/types.ts";
import { peersOf } from "./views.ts";

/** Pairs each local peer with the remote cluster's ForeignCluster for the local cluster. */
export function pairPeers(
  local: ClusterView,
  localPeers: readonly PeerView[],
  remote: ClusterView,
): { pairs: Map<string, PeerPair>; remotePeers: PeerView[]; problem?: string } {
  const pairs = new Map<string, PeerPair>();
  if (local.clusterId && local.clusterId === remote.clusterId) {
    return {
      pairs,
      remotePeers: [],
      problem: `--kubeconfig and --remote-kubeconfig point at the same cluster (${local.clusterId})`,
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
