/**
 * PROBE-MTU, the measurement: from the peer's active gateway pod (container `gateway`, which ships
 * iputils), a binary search of the largest don't-fragment ping through the WireGuard tunnel to the
 * peer's tunnel address, and, where it can be known, on the underlay toward the peer's endpoint.
 * Judged by active/mtu/judge.ts.
 *
 * The search takes the hints ping gives: a "local error … mtu=X" or "frag needed (mtu = X)" says
 * every packet above X fails, so the next try is X itself — a healthy tunnel takes two pings
 * (1500 refused by liqo-tunnel's mtu, then the MTU itself passes); a silent black hole is bisected
 * (about 11 pings between 68 and 1500 bytes). An unanswered size is re-tried once: if it then
 * passes, it is recorded as loss (flaky), never silently taken as a pass.
 */
import {
  type ConfiguredMtu,
  type GatewayObjectRef,
  type InterfaceMtu,
  judgeMtu,
  MAX_PACKET,
  MIN_PACKET,
  type MtuMeasurement,
  type PathSearch,
  type PathSkipped,
  PING_OVERHEAD,
  type PingStep,
} from "./judge.ts";
import { parsePing, type PingReading } from "./_ping.ts";
import { activeGatewayPod, gatewayOf, type GatewayRef, REMOTE_ID_LABEL } from "../../liqo/lookups.ts";
import type { Pod } from "../../liqo/views/core.ts";
import type { GatewayClient } from "../../liqo/views/networking.ts";
import {
  dontFragmentPing,
  GATEWAY_PROBE_CONTAINER,
  interfaceMtu,
  TUNNEL_INTERFACE,
  UNDERLAY_INTERFACE,
} from "../commands.ts";
import type { Side } from "../model.ts";
import type { ClusterView } from "../../checks/types.ts";
import type { ProbeRun, ProbeRunContext } from "../context.ts";

/** The tunnel addresses of Liqo's WireGuard interface `liqo-tunnel` (`pkg/gateway/tunnel/netlink.go`). */
export const TUNNEL_ADDRESSES = { server: "169.254.18.1", client: "169.254.18.2" } as const;

/** At most this many pings per path (the bisection of 68…1500 needs 11, plus hints and one re-try). */
export const MAX_PINGS = 16;

/** Sends one don't-fragment ping of `payload` ICMP bytes and reads it. */
export type PingFn = (payload: number) => Promise<PingReading>;

/** Bounds of a search, in IP packet bytes. */
export interface SearchBounds {
  minPacket: number;
  maxPacket: number;
  maxPings: number;
}

/** The search result, before it is told where it ran. */
export type SearchOutcome = Omit<PathSearch, "target" | "targetWhat" | "from">;

/**
 * Binary search of the largest IP packet that passes with don't-fragment, between `minPacket` and
 * `maxPacket`. Invariant: `lo` is the largest size known to pass (minPacket − 1 before any did),
 * `hi` the smallest known to fail (maxPacket + 1 before any did). Starts at the top (one ping when
 * the path carries 1500), follows mtu hints, tries the smallest size after the first loss (a path
 * that answers nothing is known after three pings), re-tries the final unanswered size once.
 */
export async function searchLargestPacket(
  ping: PingFn,
  bounds: SearchBounds = { minPacket: MIN_PACKET, maxPacket: MAX_PACKET, maxPings: MAX_PINGS },
  signal?: AbortSignal,
): Promise<SearchOutcome> {
  const steps: PingStep[] = [];
  let lo = bounds.minPacket - 1;
  let hi = bounds.maxPacket + 1;
  let boundary: PingReading | null = null;
  let next: number | null = bounds.maxPacket;
  let flakyAt: number | null = null;
  const done = (aborted: string | null): SearchOutcome => ({
    steps,
    largestPacket: lo >= bounds.minPacket ? lo : null,
    firstFailing: hi <= bounds.maxPacket ? hi : null,
    boundary,
    flakyAt,
    aborted,
  });
  const send = async (packet: number, retry = false): Promise<PingReading> => {
    const reading = await ping(packet - PING_OVERHEAD);
    steps.push({ payload: packet - PING_OVERHEAD, reading, ...(retry ? { retry: true } : {}) });
    return reading;
  };

  while (hi - lo > 1) {
    if (signal?.aborted) return done("interrupted");
    if (steps.length >= bounds.maxPings) {
      return done(`stopped after ${steps.length} pings between ${lo} and ${hi} bytes`);
    }
    const packet: number = next !== null && next > lo && next < hi ? next : Math.floor((lo + hi) / 2);
    next = null;
    const r = await send(packet);
    switch (r.kind) {
      case "pass":
        lo = packet;
        break;
      case "local-limit":
      case "frag-needed": {
        hi = packet;
        boundary = r;
        // Everything above the announced MTU fails the same way: jump to it.
        if (r.mtu !== null && r.mtu < hi) {
          if (r.mtu <= lo) break;
          hi = Math.min(hi, r.mtu + 1);
          next = r.mtu;
        }
        break;
      }
      case "lost":
        hi = packet;
        boundary = r;
        // Nothing passed yet: the smallest size next. If it is lost too, nothing answers ICMP there
        // at all (a filtered endpoint): three pings, not a bisection of a path that never answers.
        if (lo < bounds.minPacket) next = bounds.minPacket;
        break;
      case "unsupported":
      case "error":
        return done(r.reason);
    }
  }
  // One re-try of the size that went unanswered (no silent retries: a pass now is loss, reported).
  if (boundary?.kind === "lost" && hi <= bounds.maxPacket && steps.length < bounds.maxPings + 1) {
    if (signal?.aborted) return done("interrupted");
    const again = await send(hi, true);
    if (again.kind === "pass") {
      flakyAt = hi;
      lo = hi;
      hi = bounds.maxPacket + 1;
      boundary = null;
      // Look no further: what passes above a lossy size is not an MTU measurement.
      const r = done(null);
      return { ...r, firstFailing: null };
    }
  }
  return done(null);
}

/** A ping function running in one pod's `gateway` container through the run's bounded exec. */
export function gatewayPing(ctx: ProbeRunContext, side: Side, pod: Pod, address: string): PingFn {
  return async (payload) =>
    parsePing(
      await ctx.execPod(
        side,
        pod.metadata.namespace ?? "",
        pod.metadata.name,
        GATEWAY_PROBE_CONTAINER,
        dontFragmentPing(address, payload),
      ),
    );
}

/** The peer gateway's tunnel address seen from a gateway of `role`: the other end of the /30. */
export function peerTunnelAddress(role: "server" | "client"): string {
  return role === "server" ? TUNNEL_ADDRESSES.client : TUNNEL_ADDRESSES.server;
}

function kindOf(gw: GatewayRef): "GatewayServer" | "GatewayClient" {
  return gw.role === "server" ? "GatewayServer" : "GatewayClient";
}

/** The gateway for `peerId` on a cluster and its active pod, or why not. */
function gatewayAndPod(
  view: ClusterView,
  peerId: string,
): { gw: GatewayRef; pod: Pod | null } | { reason: string } {
  try {
    const gw = gatewayOf(view.inv, peerId);
    if (!gw) return { reason: `${view.name} has no GatewayServer or GatewayClient for ${peerId}` };
    return { gw, pod: activeGatewayPod(view.inv, gw) };
  } catch (e) {
    return { reason: `the gateways of ${view.name} could not be read: ${(e as Error).message}` };
  }
}

function configuredOn(view: ClusterView, gw: GatewayRef, peerId: string, fabric: boolean): ConfiguredMtu[] {
  const out: ConfiguredMtu[] = [];
  const mtu = gw.object.spec?.mtu;
  if (typeof mtu === "number") {
    out.push({
      source: `${kindOf(gw)} ${gw.namespace}/${gw.name} spec.mtu (${view.name})`,
      mtu,
      kind: "gateway",
    });
  }
  if (fabric) {
    const fabrics = view.inv.tryItems("internalfabrics") ?? [];
    const f = fabrics.find((x) =>
      x.metadata.namespace === gw.namespace && x.metadata.labels?.[REMOTE_ID_LABEL] === peerId
    ) ??
      fabrics.find((x) =>
        x.metadata.labels?.[REMOTE_ID_LABEL] === peerId
      );
    const fm = f?.spec?.mtu;
    if (f && typeof fm === "number") {
      out.push({
        source: `InternalFabric ${f.metadata.namespace}/${f.metadata.name} spec.mtu (${view.name})`,
        mtu: fm,
        kind: "fabric",
      });
    }
  }
  return out;
}

function objectRef(view: ClusterView, gw: GatewayRef): GatewayObjectRef {
  return {
    cluster: view.name,
    namespace: gw.namespace,
    kind: gw.role === "server" ? "gatewayserver" : "gatewayclient",
    name: gw.name,
  };
}

function podLabel(view: ClusterView, gw: GatewayRef, pod: Pod): string {
  return `gateway pod ${pod.metadata.namespace}/${pod.metadata.name} (${view.name}, ${gw.role})`;
}

/** Reads an interface's MTU in the gateway container (`cat /sys/class/net/<iface>/mtu`). */
export async function readInterfaceMtu(
  ctx: ProbeRunContext,
  side: Side,
  pod: Pod,
  iface: string,
): Promise<InterfaceMtu> {
  const out = await ctx.execPod(
    side,
    pod.metadata.namespace ?? "",
    pod.metadata.name,
    GATEWAY_PROBE_CONTAINER,
    interfaceMtu(iface),
  );
  if (!out.ok) return { name: iface, error: out.message };
  const n = Number(out.stdout.trim());
  if (out.exitCode !== 0 || !Number.isInteger(n) || n <= 0) {
    const why = out.stderr.trim().split("\n")[0] || out.stdout.trim() || "no output";
    return { name: iface, error: `exit ${out.exitCode}: ${why}` };
  }
  return { name: iface, mtu: n };
}

async function searchPath(
  ctx: ProbeRunContext,
  side: Side,
  view: ClusterView,
  gw: GatewayRef,
  pod: Pod,
  target: string,
  targetWhat: string,
  iface: string,
): Promise<PathSearch> {
  const [found, mtu] = await Promise.all([
    searchLargestPacket(gatewayPing(ctx, side, pod, target), undefined, ctx.signal),
    readInterfaceMtu(ctx, side, pod, iface),
  ]);
  return { target, targetWhat, from: podLabel(view, gw, pod), ...found, iface: mtu };
}

/**
 * The underlay search: from the client side's gateway toward its GatewayClient
 * `spec.endpoint.addresses[0]` (the address the WireGuard client dials). The server does not know
 * the client's address, so a server-side run needs the remote (client) cluster.
 */
function underlayPlan(
  ctx: ProbeRunContext,
  local: { gw: GatewayRef; pod: Pod | null },
  remote: { gw: GatewayRef; pod: Pod | null } | null,
):
  | { side: Side; view: ClusterView; gw: GatewayRef; pod: Pod; address: string; what: string }
  | PathSkipped {
  const client = local.gw.role === "client"
    ? { side: "local" as Side, view: ctx.local.view, ...local }
    : remote && remote.gw.role === "client" && ctx.remote
    ? { side: "remote" as Side, view: ctx.remote.view, ...remote }
    : null;
  if (!client) {
    return {
      skipped: `the local gateway is the WireGuard server: it does not know the client's address${
        ctx.remote ? "" : " (give --remote-kubeconfig to measure from the client side)"
      }`,
    };
  }
  if (!client.pod) return { skipped: `no running gateway pod for ${client.gw.name} on ${client.view.name}` };
  // role "client" ⇒ the object is the GatewayClient (liqo/lookups.ts gatewayOf).
  const address = (client.gw.object as GatewayClient).spec?.endpoint?.addresses?.[0];
  if (typeof address !== "string" || address === "") {
    return {
      skipped: `GatewayClient ${client.gw.namespace}/${client.gw.name} has no spec.endpoint.addresses`,
    };
  }
  return {
    side: client.side,
    view: client.view,
    gw: client.gw,
    pod: client.pod,
    address,
    what: `GatewayClient ${client.gw.name} spec.endpoint.addresses[0] on ${client.view.name}`,
  };
}

/** Measures PROBE-MTU for the run's peer (no judgement). */
export async function measureMtu(ctx: ProbeRunContext): Promise<MtuMeasurement> {
  const base: MtuMeasurement = {
    peer: ctx.peer,
    role: null,
    missing: null,
    configured: [],
    tunnel: null,
    underlay: null,
    gateway: null,
    peerGateway: null,
    clusters: {
      local: ctx.local.view.name,
      peer: ctx.remote?.view.name ?? ctx.peer,
      localId: ctx.local.view.clusterId,
    },
  };
  const local = gatewayAndPod(ctx.local.view, ctx.peer);
  if ("reason" in local) return { ...base, missing: local.reason };
  const { gw } = local;
  const localId = ctx.local.view.clusterId;
  const remoteFound = ctx.remote && localId ? gatewayAndPod(ctx.remote.view, localId) : null;
  const remote = remoteFound && !("reason" in remoteFound) ? remoteFound : null;
  const configured = [
    ...configuredOn(ctx.local.view, gw, ctx.peer, true),
    ...(remote && ctx.remote && localId ? configuredOn(ctx.remote.view, remote.gw, localId, false) : []),
  ];
  const m: MtuMeasurement = {
    ...base,
    role: gw.role,
    configured,
    gateway: objectRef(ctx.local.view, gw),
    peerGateway: remote && ctx.remote ? objectRef(ctx.remote.view, remote.gw) : null,
  };
  if (!local.pod) {
    return {
      ...m,
      missing: `no running gateway pod for ${
        kindOf(gw)
      } ${gw.namespace}/${gw.name} on ${ctx.local.view.name}`,
    };
  }
  const pod = local.pod;
  const address = peerTunnelAddress(gw.role);
  const plan = underlayPlan(ctx, { gw, pod }, remote);
  ctx.progress(`mtu: searching the largest packet through the tunnel to ${address}`);
  const [tunnel, underlay] = await Promise.all([
    searchPath(
      ctx,
      "local",
      ctx.local.view,
      gw,
      pod,
      address,
      `the ${gw.role === "server" ? "client" : "server"}'s tunnel address`,
      TUNNEL_INTERFACE,
    ),
    "skipped" in plan
      ? Promise.resolve(plan)
      : searchPath(ctx, plan.side, plan.view, plan.gw, plan.pod, plan.address, plan.what, UNDERLAY_INTERFACE),
  ]);
  return { ...m, tunnel, underlay };
}

/** PROBE-MTU: measure, then judge. */
export async function runMtu(ctx: ProbeRunContext): Promise<ProbeRun> {
  return judgeMtu(await measureMtu(ctx));
}
