/**
 * The peer's gateway as a check sees it: shared by the gateway, tunnel and fabric checks.
 * Not a check itself; checks import it, never each other.
 */
import type { CheckContext, Outcome } from "../types.ts";
import type { K8sObject } from "../../kube/source.ts";
import { gatewayOf, type GatewayRef } from "../../liqo/lookups.ts";

/** The peer and its gateway on the checked cluster, or an outcome that ends the check. */
export type GatewayLookup = { peerId: string; gw: GatewayRef } | { outcome: Outcome };

/** Finds the peer's gateway on the checked cluster; skip/fail outcomes when there is none. */
export function lookupGateway(ctx: CheckContext): GatewayLookup {
  if (!ctx.peer) return { outcome: { status: "unknown", summary: "no peer given to a per-peer check" } };
  const peerId = ctx.peer.clusterId;
  const gw = gatewayOf(ctx.cluster.inv, peerId);
  if (gw) return { peerId, gw };
  if (networkingDisabled(ctx.peer.foreignCluster)) {
    return { outcome: { status: "skip", summary: "networking not enabled for this peer" } };
  }
  return { outcome: { status: "skip", summary: `no gateway for peer ${peerId} (see GW-01)` } };
}

/** True when the ForeignCluster says the networking module is disabled. */
export function networkingDisabled(fc: K8sObject | null | undefined): boolean {
  return fc?.status?.modules?.networking?.enabled === false;
}

/** The gateway Deployment `gw-<name>` of a gateway. */
export function gatewayDeployment(ctx: CheckContext, gw: GatewayRef): K8sObject | undefined {
  return ctx.cluster.inv.get("deployments", gw.namespace, gw.workloadName);
}
