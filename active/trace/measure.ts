/**
 * PROBE-TRACE, the measurement: for each direction, tcpdump listens (container `gateway` of the
 * gateway pods, which ships tcpdump) on the source gateway's Geneve interface toward the source
 * node, both `liqo-tunnel`s, and the destination gateway's Geneve interface toward the destination
 * node; the WireGuard counters (container `wireguard`) are read before and after; one datagram
 * `echo ff-trace-<nonce>` goes from the source probe pod's netexec `/dial` to the destination pod.
 * Judged by active/trace/judge.ts.
 *
 * Directions: local → remote always; remote → local when the remote cluster is reachable (direct
 * mode, or offload mode with --remote-kubeconfig). Without it the remote hops are unknown and the
 * reverse direction is not traced: the result says so.
 */
import type { ClusterView } from "../../checks/types.ts";
import {
  type HopCapture,
  judgeTrace,
  type TraceDirection,
  type TraceMeasurement,
  type WgDelta,
} from "./judge.ts";
import { parseCapture } from "./_capture.ts";
import { activeGatewayPod, gatewayOf } from "../../liqo/lookups.ts";
import type { Pod } from "../../liqo/views/core.ts";
import { captureOn, GATEWAY_PROBE_CONTAINER, tcpConnect, udpDial, wgDump } from "../commands.ts";
import { readTcp } from "../matrix/measure.ts";
import type { ProbePod, Side } from "../model.ts";
import { TUNNEL_PREFIX, WIREGUARD_CONTAINER } from "../../probes/wireguard.ts";
import { parseSingleInterfaceDump } from "../../probes/wireguard_dump.ts";
import type { ExecOutcome } from "../../kube/source.ts";
import type { ProbeRun, ProbeRunContext } from "../context.ts";
import { rest } from "../../time.ts";

/** The WireGuard interface captured on both gateways (Liqo's `pkg/gateway/tunnel/const.go`). */
export const TUNNEL_INTERFACE: string = TUNNEL_PREFIX;

/** The TCP control's connect timeout, seconds (it runs beside the dial, inside the capture window). */
export const TRACE_TCP_TIMEOUT_S = 3;

/**
 * Timing of one direction. `settleMs`: the wait between starting the captures and sending the
 * datagram — an exec's output comes back only when it ends, so there is no "listening" signal to
 * wait for; the exec needs one round trip through the API server and the kubelet before tcpdump
 * runs, and tcpdump opens its socket within milliseconds after that; 1.5 s covers a slow API server
 * while staying bounded. `dialSeconds`: curl's bound on the `/dial`. `captureSeconds`: each
 * capture's `timeout`, long enough to cover the settle time, the dial and the echo's way back.
 */
export interface TraceTiming {
  settleMs: number;
  dialSeconds: number;
  captureSeconds: number;
}

/** Default timing: captures of 6 s = 1.5 s settle + up to 3 s dial + 1.5 s for the echo to come back. */
export const DEFAULT_TRACE_TIMING: TraceTiming = { settleMs: 1500, dialSeconds: 3, captureSeconds: 6 };

/** A fresh nonce: 10 characters of [a-z0-9]. */
export function traceNonce(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  return [...bytes].map((b) => alphabet[b % alphabet.length]).join("");
}

/** The gateway pod of `view` toward `peerId`, or why none. */
function gatewayPodOf(view: ClusterView, peerId: string | null): { pod: Pod } | { reason: string } {
  if (!peerId) return { reason: `the cluster ID the gateway of ${view.name} is labelled with is unknown` };
  try {
    const gw = gatewayOf(view.inv, peerId);
    if (!gw) return { reason: `${view.name} has no gateway for ${peerId}` };
    const pod = activeGatewayPod(view.inv, gw);
    return pod ? { pod } : { reason: `${view.name} has no running gateway pod for ${gw.name}` };
  } catch (e) {
    return { reason: `the gateways of ${view.name} could not be read: ${(e as Error).message}` };
  }
}

/** The gateway-side Geneve interface toward `node`: InternalNode(node).spec.interface.gateway.name. */
function geneveInterface(view: ClusterView, node: string): { iface: string } | { reason: string } {
  const nodes = view.inv.tryItems("internalnodes");
  if (!nodes) return { reason: `InternalNodes of ${view.name} could not be read` };
  const n = nodes.find((x) => x.metadata.name === node);
  if (!n) return { reason: `${view.name} has no InternalNode ${node}` };
  const name = n.spec?.interface?.gateway?.name;
  return name ? { iface: name } : { reason: `InternalNode ${node} has no spec.interface.gateway.name` };
}

/** Where one side's captures run: its view, the gateway pod, and the cluster ID of the far side. */
interface SideInfo {
  side: Side;
  name: string;
  view: ClusterView | null;
  gateway: { pod: Pod } | { reason: string };
}

function sideInfo(ctx: ProbeRunContext, side: Side): SideInfo {
  const c = ctx.cluster(side);
  if (!c) {
    return {
      side,
      name: ctx.peer,
      view: null,
      gateway: { reason: `${ctx.mode} mode without --remote-kubeconfig: no access to the remote gateway` },
    };
  }
  const farId = side === "local" ? ctx.peer : ctx.local.view.clusterId;
  return { side, name: c.view.name, view: c.view, gateway: gatewayPodOf(c.view, farId) };
}

function podRef(p: Pod): string {
  return `${p.metadata.namespace}/${p.metadata.name}`;
}

/** One capture on one interface of one side's gateway: the exec's outcome, or why it could not run. */
type CaptureRun = {
  pod: string | null;
  iface: string | null;
  out: Promise<ExecOutcome> | null;
  reason: string;
};

/** Starts a capture on `iface` in `info`'s gateway pod (or records why it cannot run). */
function startCapture(
  ctx: ProbeRunContext,
  info: SideInfo,
  iface: { iface: string } | { reason: string },
  seconds: number,
): CaptureRun {
  if ("reason" in info.gateway) return { pod: null, iface: null, out: null, reason: info.gateway.reason };
  const pod = info.gateway.pod;
  if ("reason" in iface) return { pod: podRef(pod), iface: null, out: null, reason: iface.reason };
  const out = ctx.execPod(
    info.side,
    pod.metadata.namespace ?? "",
    pod.metadata.name,
    GATEWAY_PROBE_CONTAINER,
    captureOn(iface.iface, seconds),
  );
  return { pod: podRef(pod), iface: iface.iface, out, reason: "" };
}

/** What a finished capture says about one nonce, as a hop. */
function hopOf(
  run: CaptureRun,
  out: ExecOutcome | null,
  hop: HopCapture["hop"],
  cluster: string,
  token: string,
  node?: string,
): HopCapture {
  return {
    hop,
    cluster,
    pod: run.pod,
    iface: run.iface,
    ...(node ? { node } : {}),
    capture: out ? parseCapture(out, token) : { kind: "unavailable", reason: run.reason },
  };
}

/** Sum of the liqo-tunnel peers' rx/tx in one `wg show liqo-tunnel dump`, or why not. */
export function wgTotals(out: ExecOutcome): { rx: number; tx: number } | { reason: string } {
  if (!out.ok) return { reason: `exec failed: ${out.message}` };
  if (out.exitCode !== 0) {
    return { reason: `wg exited ${out.exitCode}: ${(out.stderr.trim().split("\n")[0] ?? "").slice(0, 160)}` };
  }
  const parsed = parseSingleInterfaceDump(TUNNEL_INTERFACE, out.stdout);
  const peers = parsed.interfaces.flatMap((i) => i.peers);
  if (peers.length === 0) return { reason: `no peer in wg show ${TUNNEL_INTERFACE} dump` };
  let rx = 0;
  let tx = 0;
  for (const p of peers) {
    if (p.rxBytes === null || p.txBytes === null) return { reason: "unreadable transfer counters" };
    rx += Number(p.rxBytes);
    tx += Number(p.txBytes);
  }
  return { rx, tx };
}

async function readWg(
  ctx: ProbeRunContext,
  info: SideInfo,
): Promise<{ rx: number; tx: number } | { reason: string }> {
  if ("reason" in info.gateway) return { reason: info.gateway.reason };
  const pod = info.gateway.pod;
  return wgTotals(
    await ctx.execPod(
      info.side,
      pod.metadata.namespace ?? "",
      pod.metadata.name,
      WIREGUARD_CONTAINER,
      wgDump(),
    ),
  );
}

function delta(
  cluster: string,
  before: { rx: number; tx: number } | { reason: string },
  after: { rx: number; tx: number } | { reason: string },
): WgDelta {
  if ("reason" in before) return { ok: false, cluster, reason: before.reason };
  if ("reason" in after) return { ok: false, cluster, reason: after.reason };
  return { ok: true, cluster, rx: Math.max(0, after.rx - before.rx), tx: Math.max(0, after.tx - before.tx) };
}

/** Reads netexec `/dial`'s JSON answer: did the echo carry the nonce back? */
export function readDial(out: ExecOutcome, token: string): TraceDirection["dial"] {
  if (!out.ok) return { ok: false, reason: `exec failed: ${out.message}` };
  if (out.exitCode === 126 || out.exitCode === 127) {
    return { ok: false, reason: `curl could not run in the probe pod (exit ${out.exitCode})` };
  }
  if (out.exitCode === 28) {
    // curl reached the pod's own netexec (loopback) and timed out waiting for /dial's answer:
    // netexec sent the datagram and is still waiting for the echo (its UDP read lasts longer).
    return {
      ok: true,
      echoed: false,
      detail: "curl's --max-time passed while netexec still waited for the echo",
    };
  }
  if (out.exitCode !== 0) {
    // curl failed talking to the pod's own netexec: the datagram may never have been sent.
    return {
      ok: false,
      reason: `curl to the probe pod's own netexec failed (exit ${out.exitCode}): ${
        out.stderr.trim().slice(0, 160)
      }`,
    };
  }
  let body: unknown;
  try {
    body = JSON.parse(out.stdout);
  } catch {
    return {
      ok: false,
      reason: `netexec /dial answered something else than JSON: ${out.stdout.trim().slice(0, 120)}`,
    };
  }
  const b = body as { responses?: unknown; errors?: unknown };
  const responses = Array.isArray(b.responses) ? b.responses.map(String) : [];
  const errors = Array.isArray(b.errors) ? b.errors.map(String) : [];
  if (responses.some((r) => r.includes(token))) return { ok: true, echoed: true, detail: "echo received" };
  return {
    ok: true,
    echoed: false,
    detail: errors.length
      ? errors[0].slice(0, 160)
      : responses.length
      ? `answered ${responses[0].slice(0, 80)}`
      : "no answer",
  };
}

/** Most pairs traced per direction (each node of either side in at least one, up to this many). */
export const MAX_TRACE_PAIRS = 4;

/**
 * The pairs one direction traces: every source node and every destination node in at least one
 * pair (pair i = source i mod S, destination i mod D), at most {@link MAX_TRACE_PAIRS}, so a bad node
 * is not missed the way a single pair would miss it, while the captures (one per Geneve interface
 * involved, plus the tunnels) stay few.
 */
export function tracePairs(
  sources: readonly ProbePod[],
  destinations: readonly ProbePod[],
  max = MAX_TRACE_PAIRS,
): [ProbePod, ProbePod][] {
  const byNode = (a: ProbePod, b: ProbePod) => a.node.localeCompare(b.node) || a.name.localeCompare(b.name);
  const src = [...sources].sort(byNode);
  const dst = [...destinations].sort(byNode);
  if (src.length === 0 || dst.length === 0) return [];
  const n = Math.min(Math.max(src.length, dst.length), max);
  return Array.from({ length: n }, (_, i) => [src[i % src.length], dst[i % dst.length]]);
}

/**
 * Traces one direction for a set of pairs (all from one side to the other): one capture per
 * interface involved, one datagram per pair with its own nonce, all within the capture window.
 */
export async function traceDirection(
  ctx: ProbeRunContext,
  pairs: readonly [ProbePod, ProbePod][],
  timing: TraceTiming = DEFAULT_TRACE_TIMING,
  nonces: () => string = traceNonce,
): Promise<TraceDirection[]> {
  if (pairs.length === 0) return [];
  const srcInfo = sideInfo(ctx, pairs[0][0].side);
  const dstInfo = sideInfo(ctx, pairs[0][1].side);
  const heading = `${srcInfo.name} → ${dstInfo.name}`;
  const planned = pairs.map(([src, dst]) => {
    const nonce = nonces();
    const address = ctx.addressing.dial(src, dst);
    const base: TraceDirection = {
      title: heading,
      source: { pod: src.name, node: src.node, cluster: srcInfo.name, side: srcInfo.side },
      destination: {
        pod: dst.name,
        node: dst.node,
        cluster: dstInfo.name,
        side: dstInfo.side,
        address: address.ip,
      },
      nonce,
      skipped: address.ip === null ? `no address to dial: ${address.reason}` : null,
      hops: [],
      srcWg: { ok: false, cluster: srcInfo.name, reason: "not read" },
      dstWg: { ok: false, cluster: dstInfo.name, reason: "not read" },
      dial: { ok: false, reason: "not sent" },
    };
    return { src, dst, address: address.ip, base };
  });
  const live = planned.filter((p) => p.address !== null);
  if (live.length === 0) return planned.map((p) => p.base);

  const geneveOf = (info: SideInfo, node: string) =>
    info.view ? geneveInterface(info.view, node) : { reason: "no access to that cluster" };
  const secs = timing.captureSeconds;
  const [srcBefore, dstBefore] = await Promise.all([readWg(ctx, srcInfo), readWg(ctx, dstInfo)]);
  // One capture per interface: the source nodes' Geneve interfaces and the tunnel on the source
  // gateway, the tunnel and the destination nodes' Geneve interfaces on the destination gateway.
  const srcGeneve = new Map<string, CaptureRun>();
  const dstGeneve = new Map<string, CaptureRun>();
  for (const p of live) {
    if (!srcGeneve.has(p.src.node)) {
      srcGeneve.set(p.src.node, startCapture(ctx, srcInfo, geneveOf(srcInfo, p.src.node), secs));
    }
    if (!dstGeneve.has(p.dst.node)) {
      dstGeneve.set(p.dst.node, startCapture(ctx, dstInfo, geneveOf(dstInfo, p.dst.node), secs));
    }
  }
  const srcTunnel = startCapture(ctx, srcInfo, { iface: TUNNEL_INTERFACE }, secs);
  const dstTunnel = startCapture(ctx, dstInfo, { iface: TUNNEL_INTERFACE }, secs);
  const all = [...srcGeneve.values(), srcTunnel, dstTunnel, ...dstGeneve.values()];
  ctx.progress(
    `trace: ${heading}: ${live.length} datagram(s), capturing on ${
      all.filter((c) => c.out).length
    } interfaces; sending in ${timing.settleMs} ms`,
  );
  await rest(timing.settleMs, ctx.signal);
  // With each datagram, the TCP control to the same address: if it connects, the path carries TCP.
  const [dials, tcps] = await Promise.all([
    Promise.all(live.map(async (p) => {
      const token = `ff-trace-${p.base.nonce}`;
      if (ctx.signal.aborted) return { ok: false as const, reason: "interrupted" };
      return readDial(await ctx.exec(p.src, udpDial(p.address!, `echo ${token}`, timing.dialSeconds)), token);
    })),
    Promise.all(live.map(async (p): Promise<TraceDirection["tcp"]> => {
      if (ctx.signal.aborted) return "unknown";
      const t = readTcp(await ctx.exec(p.src, tcpConnect(p.address!, TRACE_TCP_TIMEOUT_S)), p.address!);
      return t.state === "ok" ? "crossed" : t.state === "fail" ? "failed" : "unknown";
    })),
  ]);
  const outs = new Map<CaptureRun, ExecOutcome | null>(
    await Promise.all(all.map(async (c) => [c, c.out ? await c.out : null] as const)),
  );
  const [srcAfter, dstAfter] = await Promise.all([readWg(ctx, srcInfo), readWg(ctx, dstInfo)]);
  const srcWg = delta(srcInfo.name, srcBefore, srcAfter);
  const dstWg = delta(dstInfo.name, dstBefore, dstAfter);
  return planned.map((p) => {
    const i = live.indexOf(p);
    if (i < 0) return p.base;
    const token = `ff-trace-${p.base.nonce}`;
    const sg = srcGeneve.get(p.src.node)!;
    const dg = dstGeneve.get(p.dst.node)!;
    return {
      ...p.base,
      hops: [
        hopOf(sg, outs.get(sg) ?? null, "src-geneve", srcInfo.name, token, p.src.node),
        hopOf(srcTunnel, outs.get(srcTunnel) ?? null, "src-tunnel", srcInfo.name, token),
        hopOf(dstTunnel, outs.get(dstTunnel) ?? null, "dst-tunnel", dstInfo.name, token),
        hopOf(dg, outs.get(dg) ?? null, "dst-geneve", dstInfo.name, token, p.dst.node),
      ],
      srcWg,
      dstWg,
      dial: dials[i],
      tcp: tcps[i],
    };
  });
}

/** Measures PROBE-TRACE: up to {@link MAX_TRACE_PAIRS} pairs per direction, both directions in parallel. */
export async function measureTrace(
  ctx: ProbeRunContext,
  timing: TraceTiming = DEFAULT_TRACE_TIMING,
): Promise<TraceMeasurement> {
  const base: TraceMeasurement = { peer: ctx.peer, missing: null, directions: [], notes: [] };
  if (ctx.fleet.local.length === 0 || ctx.fleet.remote.length === 0) {
    return {
      ...base,
      missing: `no probe pod on the ${
        ctx.fleet.local.length === 0 ? "local" : "remote"
      } side to trace from or to`,
    };
  }
  const notes: string[] = [];
  const forward = tracePairs(ctx.fleet.local, ctx.fleet.remote);
  const runs = [traceDirection(ctx, forward, timing)];
  if (ctx.remote) runs.push(traceDirection(ctx, tracePairs(ctx.fleet.remote, ctx.fleet.local), timing));
  else {
    notes.push(
      `${ctx.mode} mode without --remote-kubeconfig: only ${ctx.local.view.name} → ${ctx.peer} traced, the remote gateway's hops are unknown`,
    );
  }
  const nodes = Math.max(ctx.fleet.local.length, ctx.fleet.remote.length);
  if (nodes > MAX_TRACE_PAIRS) {
    notes.push(
      `${forward.length} pairs per direction traced (of ${nodes} nodes on the larger side): PROBE-MATRIX covers every pair`,
    );
  }
  return { ...base, directions: (await Promise.all(runs)).flat(), notes };
}

/** PROBE-TRACE: measure, then judge. */
export async function runTrace(
  ctx: ProbeRunContext,
  timing: TraceTiming = DEFAULT_TRACE_TIMING,
): Promise<ProbeRun> {
  const m = await measureTrace(ctx, timing);
  return { ...judgeTrace(m), ...(ctx.remote ? { cluster: ctx.clusterLabel } : {}) };
}
