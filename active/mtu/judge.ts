/**
 * PROBE-MTU, the judge: the largest don't-fragment ping that crosses the WireGuard tunnel (from the
 * active gateway pod to the peer's tunnel address) against the MTU the gateways are configured with,
 * and — where ICMP allows — the largest packet on the underlay toward the peer's endpoint against
 * what the tunnel needs on the wire. Pure: measurement in, Outcome out (active/mtu.ts measures).
 *
 * The arithmetic (IPv4):
 * - a ping of `s` payload bytes is an IP packet of s + 28 (IPv4 20 + ICMP 8);
 * - WireGuard wraps a tunnel packet of M bytes into M + 60 on the underlay (IPv4 20 + UDP 8 +
 *   WireGuard 32: 16 header + 16 authentication tag) — Liqo's docs: "link MTU − 60";
 * - Geneve wraps a fabric packet of F bytes (InternalFabric spec.mtu) into F + 50 between a node and
 *   the gateway pod on the pod network (IPv4 20 + UDP 8 + Geneve 8 + inner Ethernet 14).
 * So the tunnel is safe when its configured MTU M fits what crosses it (M ≤ largest passing packet),
 * and it travels unfragmented when M + 60 fits the underlay path.
 */
import {
  fix,
  flyingfish,
  kubectlIn,
  liqoctl,
  type RemediationStep,
  remoteKubeconfig,
  type RunsOn,
  step,
} from "../../checks/remediation.ts";
import type { Outcome } from "../../checks/types.ts";
import { describePing, type PingReading } from "./_ping.ts";

/** IPv4 + ICMP headers: a ping payload of s bytes is an IP packet of s + 28. */
export const PING_OVERHEAD = 28;
/** WireGuard over IPv4: outer IPv4 20 + UDP 8 + WireGuard header 16 + authentication tag 16. */
export const WIREGUARD_OVERHEAD = 60;
/** Geneve over IPv4: outer IPv4 20 + UDP 8 + Geneve header 8 + inner Ethernet 14. */
export const GENEVE_OVERHEAD = 50;
/** Smallest packet searched: 68 bytes, the IPv4 minimum MTU (RFC 791). */
export const MIN_PACKET = 68;
/** Largest packet searched: 1500 bytes, a standard Ethernet link. */
export const MAX_PACKET = 1500;

/** One ping of the search. */
export interface PingStep {
  /** ICMP payload bytes (`ping -s`). */
  payload: number;
  reading: PingReading;
  /** True for the one re-try of a size that had gone unanswered. */
  retry?: boolean;
}

/** A binary search of the largest don't-fragment ping along one path. */
export interface PathSearch {
  /** Address pinged. */
  target: string;
  /** What the address is, e.g. "the server's tunnel address" or "GatewayClient spec.endpoint.addresses[0]". */
  targetWhat: string;
  /** Where the pings were sent from, e.g. "gateway pod liqo-tenant-x/gw-y (rome, client)". */
  from: string;
  steps: PingStep[];
  /** Largest IP packet (payload + 28) that passed; null when none did. */
  largestPacket: number | null;
  /** Smallest IP packet known to fail; null when even {@link MAX_PACKET} passed. */
  firstFailing: number | null;
  /** The reading that made {@link firstFailing} fail (the local limit, a frag needed, or the loss). */
  boundary: PingReading | null;
  /** A size that went unanswered and passed on its one re-try (IP packet bytes): loss, not MTU. */
  flakyAt: number | null;
  /** The search could not run (no iputils, exec failed, no route): the reason. */
  aborted: string | null;
  /**
   * The MTU of the sending interface, read in the gateway container: a local refusal below it is a
   * path MTU the kernel cached (an earlier "frag needed", kept 10 minutes), not the interface.
   */
  iface?: InterfaceMtu;
}

/** The sending interface's MTU as read (`cat /sys/class/net/<iface>/mtu`), or why it was not. */
export type InterfaceMtu = { name: string; mtu: number } | { name: string; error: string };

/** The kernel's `net.ipv4.route.mtu_expires` default: a learnt path MTU is kept this long. */
export const PMTU_CACHE_MINUTES = 10;

/** A local refusal at an mtu below the interface's own: a cached path MTU (the mtu, the interface's). */
export function cachedPathMtu(s: PathSearch): { cached: number; iface: number; name: string } | null {
  const b = s.boundary;
  if (b?.kind !== "local-limit" || b.mtu === null || !s.iface || !("mtu" in s.iface)) return null;
  return b.mtu < s.iface.mtu ? { cached: b.mtu, iface: s.iface.mtu, name: s.iface.name } : null;
}

/** A path not searched, and why (e.g. the server side does not know the client's address). */
export interface PathSkipped {
  skipped: string;
}

/** One configured MTU and where it was read. */
export interface ConfiguredMtu {
  /** e.g. "GatewayClient liqo-tenant-x/y spec.mtu (rome)". */
  source: string;
  mtu: number;
  /** What it bounds: the gateway (tunnel) MTU or the fabric (Geneve) MTU. */
  kind: "gateway" | "fabric";
}

/** Everything PROBE-MTU measured for one peering. */
export interface MtuMeasurement {
  /** The peer's cluster ID. */
  peer: string;
  /** The local gateway's role: its tunnel address is .1 (server) or .2 (client). */
  role: "server" | "client" | null;
  /** Why nothing could be measured (no gateway, no running gateway pod): the result is unknown. */
  missing: string | null;
  configured: ConfiguredMtu[];
  tunnel: PathSearch | PathSkipped | null;
  underlay: PathSearch | PathSkipped | null;
  /** The local gateway object, for remediation. */
  gateway: GatewayObjectRef | null;
  /** The peer's gateway object when the remote cluster was read (direct mode), else null. */
  peerGateway: GatewayObjectRef | null;
  /** Display names of both clusters (the peer's: its name, or its cluster ID). */
  clusters: { local: string; peer: string; localId: string | null };
}

/** A GatewayServer/GatewayClient, as remediation names it. */
export interface GatewayObjectRef {
  cluster: string;
  namespace: string;
  kind: "gatewayserver" | "gatewayclient";
  name: string;
}

function isSearch(p: PathSearch | PathSkipped | null): p is PathSearch {
  return p !== null && !("skipped" in p);
}

/** Payload bytes for an IP packet size. */
export function payloadFor(packet: number): number {
  return packet - PING_OVERHEAD;
}

/** "1340 bytes (1312 + 28)". */
function bytes(packet: number): string {
  return `${packet} bytes (${packet - PING_OVERHEAD}-byte payload + ${PING_OVERHEAD})`;
}

/** One evidence line per search: what passed, what stopped it, how many pings. */
export function describeSearch(label: string, s: PathSearch): string[] {
  const lines: string[] = [`${label}: ping -M do from ${s.from} to ${s.target} (${s.targetWhat})`];
  if (s.aborted) {
    lines.push(`${label}: not measured — ${s.aborted}`);
    return lines;
  }
  const pass = s.largestPacket === null
    ? `nothing passed, not even ${MIN_PACKET} bytes`
    : s.flakyAt !== null
    ? `at least ${
      bytes(s.largestPacket)
    } passed (the search stopped at a size lost once and passed on re-try)`
    : s.firstFailing === null
    ? `${bytes(s.largestPacket)} passed: the search's upper bound, the path carries at least that`
    : `largest passing packet ${bytes(s.largestPacket)}`;
  const stop = s.firstFailing !== null && s.boundary
    ? `; ${s.firstFailing} bytes: ${describePing(s.boundary)}`
    : "";
  lines.push(`${label}: ${pass}${stop} [${s.steps.length} pings: ${stepTrail(s.steps)}]`);
  if (s.iface) {
    const pmtu = cachedPathMtu(s);
    lines.push(
      "error" in s.iface
        ? `${label}: ${s.iface.name} MTU not read (${s.iface.error}): a local refusal may be the interface or a cached path MTU`
        : pmtu
        ? `${label}: ${pmtu.name} MTU is ${pmtu.iface}: the local refusal at mtu=${pmtu.cached} is a path MTU the kernel cached from an earlier "frag needed" (kept ${PMTU_CACHE_MINUTES} min; \`ip route get ${s.target}\` shows it), not the interface`
        : `${label}: ${s.iface.name} MTU is ${s.iface.mtu}`,
    );
  }
  if (s.flakyAt !== null) {
    lines.push(
      `${label}: ${s.flakyAt} bytes went unanswered once and passed on its re-try: packet loss on the path, not an MTU boundary`,
    );
  }
  return lines;
}

/** "1500✗ 1340✓ 1341✗": each ping's packet size and whether it passed. */
function stepTrail(steps: readonly PingStep[]): string {
  return steps.map((s) =>
    `${s.payload + PING_OVERHEAD}${s.reading.kind === "pass" ? "✓" : "✗"}${s.retry ? "(re-try)" : ""}`
  )
    .join(" ");
}

/** What stopped the search, as a cause for the summary. */
function boundaryCause(s: PathSearch): string {
  const b = s.boundary;
  if (!b) return "";
  switch (b.kind) {
    case "frag-needed":
      return ` (a router${b.from ? ` (${b.from})` : ""} answered "frag needed"${
        b.mtu !== null ? `, mtu ${b.mtu}` : ""
      })`;
    case "local-limit": {
      const pmtu = cachedPathMtu(s);
      if (pmtu) {
        return ` (a router on the path limits it: the gateway's kernel holds a path MTU of ${pmtu.cached} learnt from an earlier "frag needed" — its ${pmtu.name} is ${pmtu.iface})`;
      }
      if (s.iface && "mtu" in s.iface && b.mtu === s.iface.mtu) {
        return ` (the gateway's own interface ${s.iface.name} refuses larger packets: mtu ${b.mtu})`;
      }
      return ` (the gateway's kernel refuses larger packets${
        b.mtu !== null ? `: mtu ${b.mtu}` : ""
      }: its interface's MTU, or a path MTU cached from an earlier "frag needed")`;
    }
    case "lost":
      return " (larger packets vanish without an error: a silent black hole)";
    default:
      return "";
  }
}

/** The remediation: the same MTU on both gateways (the specs in place, or liqoctl's --mtu). */
function mtuRemediation(m: MtuMeasurement, value: number): RemediationStep[] {
  const mtu = `{"spec":{"mtu":${value}}}`;
  // The measured gateway is the local cluster's, its peer's the remote one's.
  const patch = (g: GatewayObjectRef, on: RunsOn) =>
    step(
      kubectlIn(on, g.namespace, "patch", g.kind, g.name, "--type", "merge", "-p", mtu),
      `on ${g.cluster}`,
    );
  const otherKind = m.gateway?.kind === "gatewayclient" ? "gatewayserver" : "gatewayclient";
  // liqoctl network connect puts the server on the --remote-kubeconfig cluster.
  const [client, server]: RunsOn[] = m.role === "server" ? ["remote", "local"] : ["local", "remote"];
  return fix(
    `the same tunnel MTU (${value} or less) on both gateways: Liqo copies spec.mtu to the WireGuard interface (--mtu) and the InternalFabric`,
    m.gateway && patch(m.gateway, "local"),
    m.peerGateway ? patch(m.peerGateway, "remote") : m.gateway &&
      step(
        kubectlIn(
          "remote",
          "<tenant namespace>",
          ...["patch", otherKind, m.clusters.localId ?? "<this cluster's ID>", "--type", "merge", "-p", mtu],
        ),
        `on ${m.clusters.peer}`,
      ),
    "or set the network up again with it (liqoctl peer takes --mtu too):",
    liqoctl(client, "network", "connect", remoteKubeconfig(server), "--mtu", String(value)),
  );
}

/**
 * Judges PROBE-MTU. Pass when the configured gateway MTU fits the largest packet that crosses the
 * tunnel; fail when it does not ("set spec.mtu ≤ N"); warn when the tunnel works but its WireGuard
 * packets (M + 60) exceed the underlay path (they travel fragmented), or when a lost ping passed on
 * re-try; unknown when nothing could be measured or no MTU is configured. An underlay where ICMP
 * gets no answer at any size is unknown for the underlay only, never a failure.
 */
export function judgeMtu(m: MtuMeasurement): Outcome {
  if (m.missing) return { status: "unknown", summary: m.missing, evidence: [] };
  const evidence: string[] = [];
  const tunnel = m.tunnel;
  if (isSearch(tunnel)) evidence.push(...describeSearch("tunnel", tunnel));
  else if (tunnel) evidence.push(`tunnel: not measured — ${tunnel.skipped}`);
  const underlay = m.underlay;
  if (isSearch(underlay)) evidence.push(...describeSearch("underlay", underlay));
  else if (underlay) evidence.push(`underlay: not measured — ${underlay.skipped}`);

  const gatewayMtus = m.configured.filter((c) => c.kind === "gateway");
  const fabricMtus = m.configured.filter((c) => c.kind === "fabric");
  for (const c of m.configured) evidence.push(`configured: ${c.source} = ${c.mtu}`);
  const configured = gatewayMtus.length > 0 ? Math.max(...gatewayMtus.map((c) => c.mtu)) : null;
  if (configured !== null) {
    evidence.push(
      `arithmetic: WireGuard adds ${WIREGUARD_OVERHEAD} bytes (IPv4 20 + UDP 8 + WireGuard 32): a ${configured}-byte tunnel packet is ${
        configured + WIREGUARD_OVERHEAD
      } bytes on the underlay`,
    );
  }
  for (const f of fabricMtus) {
    evidence.push(
      `arithmetic: Geneve adds ${GENEVE_OVERHEAD} bytes (IPv4 20 + UDP 8 + Geneve 8 + Ethernet 14): ${f.mtu}-byte fabric packets are ${
        f.mtu + GENEVE_OVERHEAD
      } bytes between the nodes and the gateway pod (not measured here)`,
    );
  }

  if (!isSearch(tunnel)) {
    return {
      status: "unknown",
      summary: `tunnel MTU not measured: ${tunnel?.skipped ?? "no search ran"}`,
      evidence,
    };
  }
  if (tunnel.aborted) {
    return { status: "unknown", summary: `tunnel MTU not measured: ${tunnel.aborted}`, evidence };
  }
  if (tunnel.largestPacket === null) {
    return {
      status: "fail",
      summary:
        `no ping crossed the tunnel to ${tunnel.target}, not even ${MIN_PACKET} bytes: the tunnel carries nothing (or the peer gateway drops ICMP)`,
      evidence,
      remediation: fix(
        m.gateway &&
          step(
            kubectlIn("local", m.gateway.namespace, "get", "connections", "-o", "wide"),
            "TUN-01: is the tunnel Connected?",
          ),
        step(flyingfish("probe", "trace"), "where do packets stop?"),
      ),
    };
  }
  if (configured === null) {
    return {
      status: "unknown",
      summary:
        `largest packet through the tunnel is ${tunnel.largestPacket} bytes, but no gateway spec.mtu was found to compare it with`,
      evidence,
    };
  }
  const T = tunnel.largestPacket;
  const U = isSearch(underlay) && !underlay.aborted ? underlay.largestPacket : null;
  const underlayBound = U !== null && underlay && isSearch(underlay) && underlay.firstFailing !== null
    ? U - WIREGUARD_OVERHEAD
    : null;
  if (U === null && isSearch(underlay) && !underlay.aborted) {
    evidence.push(
      `underlay: ICMP to ${underlay.target} got no answer at any size (filtered?): the underlay path MTU is unknown, not a failure`,
    );
  }
  const flaky = tunnel.flakyAt !== null;
  if (T < configured) {
    const safe = underlayBound !== null ? Math.min(T, underlayBound) : T;
    const summary =
      `largest packet through the tunnel is ${T} bytes; the gateway MTU is ${configured}: set spec.mtu ≤ ${safe}` +
      boundaryCause(tunnel);
    if (flaky) {
      return {
        status: "warn",
        summary:
          `${summary} — but a lost ping passed on re-try: loss on the path makes this boundary unreliable, re-run`,
        evidence,
        remediation: mtuRemediation(m, safe),
      };
    }
    return { status: "fail", summary, evidence, remediation: mtuRemediation(m, safe) };
  }
  if (underlayBound !== null && configured > underlayBound) {
    return {
      status: "warn",
      summary: `the tunnel carries ${configured}-byte packets, but as WireGuard packets they are ${
        configured + WIREGUARD_OVERHEAD
      } bytes and the underlay path passes only ${U}: they travel fragmented — set spec.mtu ≤ ${underlayBound}`,
      evidence,
      remediation: mtuRemediation(m, underlayBound),
    };
  }
  if (flaky) {
    return {
      status: "warn",
      summary:
        `the gateway MTU ${configured} fits the tunnel (${T} bytes pass), but a lost ping passed on re-try: packet loss on the path`,
      evidence,
    };
  }
  return {
    status: "pass",
    summary: `the gateway MTU ${configured} fits: ${T}-byte packets cross the tunnel with don't-fragment${
      U !== null ? `, ${U} bytes pass on the underlay` : ""
    }`,
    evidence,
  };
}
