/**
 * Is the tunnel demonstrably up? The cluster's own evidence — a fresh Connected status written by
 * the in-tunnel pinger, or a recent WireGuard handshake — answers questions a probe from this host
 * cannot (GW-05: a gateway endpoint that works for the peer may stay silent to strangers). Not a
 * check; the tunnel checks judge these readings in detail.
 */
import type { CheckContext } from "../types.ts";
import { activeGatewayPod, ageMs, connectionOf, formatAge, type GatewayRef } from "../../liqo/lookups.ts";
import { pingDisabled } from "../../liqo/args.ts";
import { handshakeAgeSeconds, TUNNEL_PREFIX } from "../../probes/wireguard.ts";
import { gatewayDeployment } from "./gateway.ts";

/** Connection latency timestamps older than this are stale (the pinger refreshes every ~10 s). */
export const CONNECTION_STALE_MS = 60_000;

/** A WireGuard handshake older than this means the tunnel is down (WireGuard rekeys every 2 min). */
export const HANDSHAKE_MAX_AGE_S = 180;

/**
 * What proves the peer's tunnel is up on this cluster, as an evidence line; null when nothing does
 * (down, or not readable). Never throws: an unreadable input is simply no proof.
 */
export async function tunnelUpProof(
  ctx: CheckContext,
  gw: GatewayRef,
  peerId: string,
): Promise<string | null> {
  const conn = connectionProof(ctx, gw, peerId);
  if (conn) return conn;
  try {
    const pod = activeGatewayPod(ctx.cluster.inv, gw);
    if (!pod) return null;
    const ev = await ctx.probes.wireguard(ctx.cluster.name, gw.namespace, pod.metadata.name);
    if (!ev.ok) return null;
    const sample = ev.second ?? ev.first;
    const nowMs = sample.takenAt;
    for (const itf of sample.interfaces.filter((i) => i.name.startsWith(TUNNEL_PREFIX))) {
      for (const p of itf.peers) {
        const age = handshakeAgeSeconds(p, nowMs);
        if (age !== null && age <= HANDSHAKE_MAX_AGE_S) {
          return `WireGuard ${itf.name} in ${pod.metadata.name}: latest handshake with the peer ${
            formatAge(age * 1000)
          } ago`;
        }
      }
    }
  } catch {
    // pods unreadable or the sample failed: no proof
  }
  return null;
}

function connectionProof(ctx: CheckContext, gw: GatewayRef, peerId: string): string | null {
  // No Connection to read is no proof (never a pass on its own): asked, so the check still judges.
  if (!ctx.cluster.inv.readable("connections").ok) return null;
  const conn = connectionOf(ctx.cluster.inv, gw, peerId);
  if (conn?.status?.value !== "Connected") return null;
  // With the pinger off the status is always Connected: no proof.
  try {
    if (pingDisabled(gatewayDeployment(ctx, gw)?.spec?.template?.spec)) return null;
  } catch {
    return null;
  }
  const age = ageMs(ctx.cluster.now, conn.status?.latency?.timestamp);
  if (age === null || age > CONNECTION_STALE_MS) return null;
  return `Connection ${conn.metadata.name} Connected, pinger updated ${formatAge(age)} ago (latency ${
    conn.status?.latency?.value ?? "?"
  })`;
}
