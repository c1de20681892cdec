/**
 * Does the peer provably reach this gateway? An advertised address that looks unroutable (a node's
 * private InternalIP, a cloud-internal DNS name) is still healthy when the tunnel is demonstrably up:
 * on the server, a fresh handshake or a fresh Connected status means the client's packets arrived.
 * In dual mode the other side's evidence counts too. Not a check; the gateway checks share it.
 */
import type { CheckContext } from "../types.ts";
import { ageMs, connectionOf, formatAge, gatewayOf, type GatewayRef } from "../../liqo/lookups.ts";
import { CONNECTION_STALE_MS, tunnelUpProof } from "./tunnel_state.ts";

/** The evidence that the tunnel of this peering is up, from this cluster or (dual) the other one. */
export async function peerReachProof(
  ctx: CheckContext,
  gw: GatewayRef,
  peerId: string,
): Promise<string | null> {
  const local = await tunnelUpProof(ctx, gw, peerId);
  if (local) return local;
  const other = otherSide(ctx);
  if (!other) return null;
  const remote = await tunnelUpProof(other.ctx, other.gw, other.peerId);
  return remote ? `${other.ctx.cluster.name}: ${remote}` : null;
}

/**
 * A fact saying the tunnel is not up (the peer's Connection on this cluster is not Connected, or
 * Connected with a stale pinger update); null when nothing says so or nothing is readable.
 */
export function tunnelDownFact(ctx: CheckContext, gw: GatewayRef, peerId: string): string | null {
  try {
    if (ctx.cluster.inv.tryItems("connections") === null) return null;
    const conn = connectionOf(ctx.cluster.inv, gw, peerId);
    if (!conn?.status?.value) return null;
    if (conn.status.value !== "Connected") {
      return `Connection ${conn.metadata.name} is ${conn.status.value}: the tunnel is not up`;
    }
    const age = ageMs(ctx.cluster.now, conn.status.latency?.timestamp);
    if (age !== null && age > CONNECTION_STALE_MS) {
      return `Connection ${conn.metadata.name} Connected but its pinger last updated ${formatAge(age)} ago`;
    }
  } catch {
    // connections unreadable: no fact
  }
  return null;
}

/** The other cluster's context and gateway for this peering (dual mode), if it has one. */
function otherSide(ctx: CheckContext): { ctx: CheckContext; gw: GatewayRef; peerId: string } | null {
  if (!ctx.remote || !ctx.remotePeer) return null;
  try {
    const gw = gatewayOf(ctx.remote.inv, ctx.remotePeer.clusterId);
    if (!gw) return null;
    const flipped: CheckContext = {
      ...ctx,
      cluster: ctx.remote,
      remote: ctx.cluster,
      peer: ctx.remotePeer,
      remotePeer: ctx.peer,
    };
    return { ctx: flipped, gw, peerId: ctx.remotePeer.clusterId };
  } catch {
    return null;
  }
}
