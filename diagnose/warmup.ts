/**
 * Probe warm-up: the first `wg show` sample of every active gateway pod starts as soon as the
 * cluster is read, so the sampling interval overlaps the checks instead of following them.
 */
import { activeGatewayPod, gatewayOf } from "../liqo/lookups.ts";
import type { ProbeHub } from "../probes/hub.ts";
import { prefetchWireguard } from "../probes/live_hub.ts";
import type { ClusterView, PeerView } from "../checks/types.ts";

/**
 * Starts `wg show` sampling on every active gateway pod now, so it overlaps the other checks.
 * Resolves once every first sample is in (a fleet run holds its other reads until then); never
 * rejects.
 */
export function warmWireguard(
  probes: ProbeHub,
  view: ClusterView,
  peers: readonly PeerView[],
): Promise<void> {
  const firsts: Promise<void>[] = [];
  for (const p of peers) {
    try {
      const gw = gatewayOf(view.inv, p.clusterId);
      const pod = gw ? activeGatewayPod(view.inv, gw) : null;
      if (pod) firsts.push(prefetchWireguard(probes, view.name, pod.metadata.namespace!, pod.metadata.name));
    } catch {
      // An unreadable kind: the checks that need the sample say so themselves.
    }
  }
  return Promise.all(firsts).then(() => {});
}
