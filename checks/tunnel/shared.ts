/**
 * Helpers shared by several TUNNEL checks (not a check): the kinds every tunnel check reads, kubectl
 * commands, the peer's Connection, and the live `wg show` state of the active gateway pod.
 */
import type { CheckContext, ClusterView, Outcome } from "../types.ts";
import type { Pod } from "../../liqo/views/core.ts";
import type { Connection } from "../../liqo/views/networking.ts";
import type { WgEvidence, WgInterface } from "../../probes/hub.ts";
import { activeGatewayPod, type GatewayRef, REMOTE_ID_LABEL } from "../../liqo/lookups.ts";
import {
  PEER_FIELDS,
  TUNNEL_PREFIX,
  tunnelInterfaces,
  unreadableCounters,
  unreadableField,
} from "../../probes/wireguard.ts";
import { lookupGateway } from "../common/gateway.ts";
import { kubectlIn } from "../common/commands.ts";

/** The gateway kinds every tunnel check reads. */
export const GW_KINDS = ["gatewayservers", "gatewayclients"] as const;

/** Label on PublicKeys and gateway Secrets. */
export const GATEWAY_RESOURCE_LABEL = "networking.liqo.io/gateway-resource";

export function wgCommand(ns: string, pod: string): string {
  return `${kubectlIn(ns)} exec ${pod} -c wireguard -- wg show all dump`;
}

/** The peer's Connection on a cluster: by label in the gateway namespace, preferring name gw-<name>. */
export function connectionOf(
  inv: ClusterView["inv"],
  gw: GatewayRef,
  peerId: string,
): Connection | undefined {
  const conns = inv.items("connections").filter((c) =>
    c.metadata.namespace === gw.namespace && c.metadata.labels?.[REMOTE_ID_LABEL] === peerId
  );
  return conns.find((c) => c.metadata.name === gw.workloadName) ?? conns[0];
}

/** The WireGuard evidence of the active gateway pod, or an outcome when there is no pod. */
export async function liveWireguard(
  ctx: CheckContext,
  gw: GatewayRef,
): Promise<{ ev: WgEvidence; pod: Pod } | { none: string }> {
  const pod = activeGatewayPod(ctx.cluster.inv, gw);
  if (!pod) return { none: "no running gateway pod (see GW-01)" };
  const ev = await ctx.probes.wireguard(ctx.cluster.name, gw.namespace, pod.metadata.name);
  return { ev, pod };
}

function execUnknown(ev: Extract<WgEvidence, { ok: false }>, what: string): Outcome {
  return {
    status: "unknown",
    summary: `${what}: cannot run wg in ${ev.namespace}/${ev.pod} (${ev.reason}: ${ev.message})`,
    evidence: [`exec of wg show all dump in container wireguard: ${ev.message}`],
    remediation: `# run by hand (needs create on pods/exec):\n${wgCommand(ev.namespace, ev.pod)}`,
  };
}

/** Tunnel interfaces of a sample, or an outcome when the output was unusable. */
function tunnelsOrOutcome(ev: Extract<WgEvidence, { ok: true }>, what: string): WgInterface[] | Outcome {
  const tunnels = tunnelInterfaces(ev.first);
  if (tunnels.length > 0) return tunnels;
  const skipped = ev.notes.filter((n) => n.includes("skipped"));
  if (skipped.length > 0) {
    return {
      status: "unknown",
      summary: `${what}: could not read the WireGuard state of ${ev.pod} (unparsable wg output)`,
      evidence: ev.notes.slice(0, 6),
      remediation: `# inspect by hand:\n${wgCommand(ev.namespace, ev.pod)}`,
    };
  }
  return {
    status: "fail",
    summary: `no ${TUNNEL_PREFIX} interface in ${ev.pod}: the wireguard container has not created the tunnel`,
    evidence: [
      `interfaces: ${ev.first.interfaces.map((i) => i.name).join(", ") || "(none)"}`,
      ...ev.notes.slice(0, 4),
    ],
    remediation: `${kubectlIn(ev.namespace)} logs ${ev.pod} -c wireguard`,
  };
}

export function shortKey(key: string): string {
  return key.length > 12 ? `${key.slice(0, 10)}…` : key;
}

/** The live reading a tunnel check judges: the latest handshake (TUN-02) or the transfer counters (TUN-03). */
export type TunnelReading = "handshake" | "counters";

/**
 * The outcome that replaces a judgement when the wg output could not be read where the check looks:
 * a tunnel interface whose peer lines could not be read at all (no readable peer left), or a peer whose
 * handshake / counters are unreadable. Null when everything the check needs was read.
 */
export function unreadableOutcome(
  ev: Extract<WgEvidence, { ok: true }>,
  tunnels: WgInterface[],
  reading: TunnelReading | null,
  what: string,
): Outcome | null {
  const problems: string[] = [];
  for (const itf of tunnels) {
    if (itf.peers.length === 0 && itf.unreadableLines?.length) {
      problems.push(...itf.unreadableLines.map((l) => `${itf.name}: ${l}`));
    }
  }
  if (reading === "handshake") {
    for (const itf of tunnels) {
      for (const p of itf.peers) {
        for (const u of unreadableField(p, PEER_FIELDS.handshake)) {
          problems.push(`${itf.name} peer ${shortKey(p.publicKey)}: unreadable ${u}`);
        }
      }
    }
  } else if (reading === "counters") {
    const second = ev.second ?? ev.first;
    for (const u of unreadableCounters(ev.first, second)) {
      if (!u.interface.startsWith(TUNNEL_PREFIX)) continue;
      problems.push(
        ...u.problems.map((x) => `${u.interface} peer ${shortKey(u.publicKey)}: unreadable ${x}`),
      );
    }
  }
  if (problems.length === 0) return null;
  return {
    status: "unknown",
    summary: `${what}: unreadable wg output in ${ev.pod} (${problems[0]})`,
    evidence: problems.slice(0, 6),
    remediation: `# inspect by hand:\n${wgCommand(ev.namespace, ev.pod)}`,
  };
}

/** The live WireGuard evidence of the peer's active gateway and its tunnel interfaces, or the outcome
 * that replaces a judgement (no gateway, exec impossible, no tunnel interface, or the field the check
 * reads — `reading`, by default inferred from `what` — unreadable in the wg output). */
export async function liveTunnels(
  ctx: CheckContext,
  what: string,
  reading: TunnelReading | null,
): Promise<
  { gw: GatewayRef; ev: Extract<WgEvidence, { ok: true }>; tunnels: WgInterface[] } | { outcome: Outcome }
> {
  const l = lookupGateway(ctx);
  if ("outcome" in l) return { outcome: l.outcome };
  const live = await liveWireguard(ctx, l.gw);
  if ("none" in live) return { outcome: { status: "skip", summary: live.none } };
  const { ev } = live;
  if (!ev.ok) return { outcome: execUnknown(ev, what) };
  const tunnels = tunnelsOrOutcome(ev, what);
  if (!Array.isArray(tunnels)) return { outcome: tunnels };
  const unreadable = unreadableOutcome(ev, tunnels, reading, what);
  return unreadable ? { outcome: unreadable } : { gw: l.gw, ev, tunnels };
}
