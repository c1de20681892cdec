/**
 * Probe warm-up: the first `wg show` sample of every active gateway pod starts as soon as the
 * cluster is read, so the sampling interval overlaps the checks instead of following them.
 */
import { activeGatewayPod, gatewayOf } from "../liqo/lookups.ts";
import type { ProbeHub } from "../probes/hub.ts";
import type { ClusterView, PeerView } from "../checks/types.ts";

/** Starts `wg show` sampling on every active gateway pod now, so it overlaps the other checks. */
export function warmWireguard(probes: ProbeHub, view: ClusterView, peers: readonly PeerView[]): void {
  for (const p of peers) {
    try {
      const gw = gatewayOf(view.inv, p.clusterId);
      const pod = gw ? activeGatewayPod(view.inv, gw) : null;
      if (pod) probes.wireguard(view.name, pod.metadata.namespace!, pod.metadata.name).catch(() => {});
    } catch {
      // An unreadable kind: the checks that need the sample say so themselves.
    }
  }
}
