/**
 * The peer's gateway as a check sees it: shared by the gateway, tunnel and fabric checks.
 * Not a check itself; checks import it, never each other.
 */
import type { CheckContext, Outcome } from "../types.ts";
import type { Deployment } from "../../liqo/views/core.ts";
import type { GatewayClient, GatewayServer } from "../../liqo/views/networking.ts";
import type { ForeignCluster } from "../../liqo/views/peering.ts";
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
export function networkingDisabled(fc: ForeignCluster | null | undefined): boolean {
  return fc?.status?.modules?.networking?.enabled === false;
}

/** The gateway Deployment `gw-<name>` of a gateway. */
export function gatewayDeployment(ctx: CheckContext, gw: GatewayRef): Deployment | undefined {
  return ctx.cluster.inv.get("deployments", gw.namespace, gw.workloadName);
}

/** The GatewayServer of a gateway this cluster serves, else null (gatewayOf sets the role by kind). */
export function serverOf(gw: GatewayRef): GatewayServer | null {
  return gw.role === "server" ? gw.object as GatewayServer : null;
}

/** The GatewayClient of a gateway this cluster dials from, else null. */
export function clientOf(gw: GatewayRef): GatewayClient | null {
  return gw.role === "client" ? gw.object as GatewayClient : null;
}
