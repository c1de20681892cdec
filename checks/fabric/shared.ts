/**
 * Helpers shared by the FABRIC checks (not a check): the fabric pods (FAB-01, FAB-04) and the skip
 * of a peer without a gateway (FAB-02, FAB-04).
 */
import type { CheckContext, Outcome } from "../types.ts";
import type { Objects } from "../../liqo/views/mod.ts";
import type { Pod } from "../../liqo/views/core.ts";
import { networkingDisabled } from "../common/gateway.ts";

/** Label selecting the liqo-fabric DaemonSet and its pods (value `fabric`). */
export const FABRIC_NAME_LABEL = "app.kubernetes.io/name";

/** Fabric pods (not being deleted), by the DaemonSet's selector labels. */
export function fabricPods(inv: Objects, liqoNs: string | null): Pod[] {
  return inv.withLabel("pods", FABRIC_NAME_LABEL, "fabric").filter((p) =>
    (liqoNs === null || p.metadata.namespace === liqoNs) && !p.metadata.deletionTimestamp
  );
}

/** The skip of a peer without a gateway: the networking module is off for it, or GW-01 found none. */
export function noGatewaySkip(ctx: CheckContext): Outcome {
  return {
    status: "skip",
    summary: networkingDisabled(ctx.peer?.foreignCluster)
      ? "networking module disabled for this peer"
      : "no gateway for this peer (GW-01)",
  };
}
