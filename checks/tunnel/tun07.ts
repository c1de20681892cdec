/**
 * TUN-07: the tunnel MTU fits the underlay beneath it. WireGuard adds 60 bytes over IPv4 (80 over IPv6)
 * to every packet (Liqo's `docs/usage/peer.md`, "MTU": WireGuard MTU = link MTU − overhead), so the
 * liqo-tunnel MTU must leave that much room on the gateway pod's own interface (eth0) and on the link
 * under it. An overlay underlay — Tailscale's CGNAT addresses, itself WireGuard — runs at 1280, which
 * the pod's eth0 often does not show.
 */
import type { CheckContext, CheckDef, Outcome } from "../types.ts";
import { activeGatewayPod, type GatewayRef } from "../../liqo/lookups.ts";
import { contains, isIPv6 } from "../../probes/cidr.ts";
import { TUNNEL_PREFIX } from "../../probes/wireguard.ts";
import { lookupGateway } from "../common/gateway.ts";
import { execFix, GW_KINDS } from "./_story.ts";
import { fix, kubectlIn, liqoctl, note, remoteKubeconfig } from "../remediation.ts";

/** WireGuard's per-packet overhead over IPv4 / IPv6 (`docs/usage/peer.md`). */
export const WG_OVERHEAD_V4 = 60;
export const WG_OVERHEAD_V6 = 80;

/** The MTU of a Tailscale (WireGuard-in-WireGuard) underlay. */
export const OVERLAY_UNDERLAY_MTU = 1280;

/** Liqo's default tunnel MTU (`pkg/liqo-controller-manager/networking/forge/common.go` DefaultMTU). */
const LIQO_DEFAULT_MTU = 1340;

/** Tailscale's address ranges: the CGNAT block it assigns from, and its IPv6 ULA prefix. */
const TAILSCALE_V4 = "100.64.0.0/10";
const TAILSCALE_V6_PREFIX = /^fd7a:115c:a1e0:/i;

/** True for a host address Tailscale assigns (100.64.0.0/10, fd7a:115c:a1e0::/48). */
export function isTailscaleAddress(host: string): boolean {
  return isIPv6(host) ? TAILSCALE_V6_PREFIX.test(host) : contains(TAILSCALE_V4, host);
}

/** One bound on the underlay MTU and where it comes from. */
interface Bound {
  mtu: number;
  source: string;
}

/** The addresses the tunnel runs between, as this cluster knows them (endpoint, live peer endpoints). */
function tunnelAddresses(gw: GatewayRef, livePeerEndpoints: readonly string[]): string[] {
  const obj = gw.object as { spec?: { endpoint?: { addresses?: string[] | null } } } & {
    status?: { endpoint?: { addresses?: string[] | null } };
  };
  const declared = gw.role === "client" ? obj.spec?.endpoint?.addresses : obj.status?.endpoint?.addresses;
  return [...(declared ?? []), ...livePeerEndpoints].filter((a) => typeof a === "string" && a !== "");
}

/** The host part of "ip:port", "[v6]:port" or a bare address. */
function hostOf(endpoint: string): string {
  const v6 = endpoint.match(/^\[([^\]]+)\](?::\d+)?$/);
  if (v6) return v6[1];
  return /^[^:]+:\d+$/.test(endpoint) ? endpoint.slice(0, endpoint.lastIndexOf(":")) : endpoint;
}

async function run(ctx: CheckContext): Promise<Outcome> {
  const l = lookupGateway(ctx);
  if ("outcome" in l) return l.outcome;
  const { gw } = l;
  const pod = activeGatewayPod(ctx.cluster.inv, gw);
  if (!pod) return { status: "skip", summary: `no running gateway pod for ${gw.workloadName} (GW-01)` };
  const evidence: string[] = [];
  const bounds: Bound[] = [];
  const notes: string[] = [];
  let tunnelMtu: { mtu: number; source: string } | null = null;
  let livePeers: string[] = [];
  const ev = await ctx.probes.wireguard(ctx.cluster.name, gw.namespace, pod.metadata.name);
  let failedExec: Parameters<typeof execFix>[0] | null = null;
  if (ev.ok) {
    const live = Object.entries(ev.mtu).filter(([n]) => n.startsWith(TUNNEL_PREFIX));
    if (live.length > 0) {
      const [name, mtu] = live.reduce((a, b) => (b[1] > a[1] ? b : a));
      tunnelMtu = { mtu, source: `live ${name} MTU` };
    }
    livePeers = ev.first.interfaces.flatMap((i) => i.peers.map((p) => p.endpoint ?? "")).filter((e) =>
      e !== "" && e !== "(none)"
    );
    if (ev.underlay?.mtu) {
      bounds.push({ mtu: ev.underlay.mtu, source: `gateway pod ${pod.metadata.name} ${ev.underlay.iface}` });
    } else if (ev.underlay?.note) notes.push(`${ev.underlay.iface} MTU not read: ${ev.underlay.note}`);
    else notes.push("eth0 MTU not read");
  } else {
    notes.push(`gateway pod interfaces not read: ${ev.message}`);
    if (ev.reason === "forbidden") failedExec = ev;
  }
  if (!tunnelMtu) {
    const spec = gw.object.spec?.mtu;
    tunnelMtu = typeof spec === "number"
      ? {
        mtu: spec,
        source: `${gw.role === "server" ? "GatewayServer" : "GatewayClient"} ${gw.name} spec.mtu`,
      }
      : { mtu: LIQO_DEFAULT_MTU, source: "Liqo's default MTU" };
  }
  const hosts = tunnelAddresses(gw, livePeers).map(hostOf);
  const overlay = [...new Set(hosts.filter(isTailscaleAddress))];
  const nodeName = pod.spec?.nodeName;
  const node = nodeName
    ? (ctx.cluster.inv.tryItems("nodes") ?? []).find((n) => n.metadata.name === nodeName)
    : undefined;
  const nodeOverlay = (node?.status?.addresses ?? []).map((a) => a?.address ?? "").filter((a) =>
    a !== "" && isTailscaleAddress(a)
  );
  if (overlay.length > 0) {
    bounds.push({
      mtu: OVERLAY_UNDERLAY_MTU,
      source: `Tailscale underlay (tunnel endpoint ${overlay.join(", ")} in ${TAILSCALE_V4})`,
    });
  } else if (nodeOverlay.length > 0) {
    bounds.push({
      mtu: OVERLAY_UNDERLAY_MTU,
      source: `Tailscale underlay (node ${nodeName} address ${nodeOverlay.join(", ")} in ${TAILSCALE_V4})`,
    });
  }
  const v6 = hosts.some((h) => isIPv6(h));
  const overhead = v6 ? WG_OVERHEAD_V6 : WG_OVERHEAD_V4;
  evidence.push(`${tunnelMtu.source}: ${tunnelMtu.mtu}`);
  for (const b of bounds) evidence.push(`${b.source}: MTU ${b.mtu}`);
  evidence.push(...notes);
  if (bounds.length === 0) {
    return {
      status: "unknown",
      summary: `underlay MTU unknown: ${notes[0] ?? "eth0 MTU not read"}`,
      evidence,
      // Exec forbidden: the same exec by hand fails the same way, so name the missing verb instead.
      remediation: failedExec ? execFix(failedExec) : fix(
        kubectlIn(
          "local",
          gw.namespace,
          "exec",
          pod.metadata.name,
          "-c",
          "gateway",
          "--",
          "cat",
          "/sys/class/net/eth0/mtu",
        ),
      ),
    };
  }
  const tightest = bounds.reduce((a, b) => (b.mtu < a.mtu ? b : a));
  const max = tightest.mtu - overhead;
  evidence.push(
    `largest tunnel MTU the underlay carries: ${max} (${tightest.mtu} − ${overhead} B WireGuard over IPv${
      v6 ? 6 : 4
    })`,
  );
  if (tunnelMtu.mtu <= max) {
    return {
      status: "pass",
      summary:
        `tunnel MTU ${tunnelMtu.mtu} fits the underlay (${tightest.source}: ${tightest.mtu}, up to ${max})`,
      evidence,
    };
  }
  return {
    status: "fail",
    summary:
      `tunnel MTU ${tunnelMtu.mtu} too large for the underlay (${tightest.source}: MTU ${tightest.mtu}): ` +
      `packets above ${max} bytes are dropped (pings pass, large transfers stall) — set MTU ${max}`,
    evidence,
    remediation: fix(
      note(`both gateways must use the same MTU, at most ${max}: re-create the network with it`),
      liqoctl("consumer", "network", "reset", remoteKubeconfig("provider")),
      liqoctl("consumer", "network", "connect", remoteKubeconfig("provider"), "--mtu", String(max)),
    ),
  };
}

export const TUN_07: CheckDef = {
  id: "TUN-07",
  title: "Tunnel MTU fits the underlay",
  layer: "tunnel",
  // Two sides that disagree on the MTU (TUN-06 fail) are one fault, fixed first; an unknown TUN-06
  // (no MTU found) leaves this check its own reads.
  needs: ["GW-01", "TUN-06"],
  runsIfUnknown: ["TUN-06"],
  scope: "single",
  perPeer: true,
  reads: [...GW_KINDS, "pods"],
  readsIn: { pods: ["gateways"] },
  optionalReads: ["nodes"],
  explain: {
    reads: "Through the live WireGuard read of the active gateway pod (exec, read-only): the liqo-tunnel " +
      "MTU (/sys/class/net/liqo-tunnel/mtu) and the pod's own eth0 MTU (/sys/class/net/eth0/mtu, the same " +
      "network namespace as every container of the pod), the peer endpoints WireGuard dials; the gateway's " +
      "spec.mtu and endpoint addresses; the gateway node's addresses.",
    decides: "fail when the tunnel MTU plus WireGuard's overhead (60 B over IPv4, 80 B over IPv6, Liqo's " +
      "docs/usage/peer.md) exceeds the tightest underlay: the pod's eth0, or 1280 when the tunnel runs over " +
      "Tailscale (an endpoint or the gateway node in 100.64.0.0/10 or fd7a:115c:a1e0::/48), naming the MTU " +
      "to set; pass when it fits; unknown when no underlay MTU could be read (exec not allowed).",
    fixes: "Re-create the network with the MTU the check names on both sides: liqoctl network reset, then " +
      "liqoctl network connect --mtu <n> (or liqoctl peer --mtu <n>).",
  },
  hops: ["wireguard", "gateway"],
  hubReads: ["wireguard"],
  run,
};
