/**
 * PROBE-UDP: a series of nonce-numbered datagrams from one local probe pod to one remote probe pod
 * through the tunnel (active/commands.ts udpSeries), and one netexec `clientip` dial to learn
 * the source address the far side saw. The local pod is the one on the gateway's node when there
 * is one (its traffic skips the Geneve hop: the tunnel alone is measured), else the first; the
 * remote pod likewise on the peer's gateway node when known. Judged by active/udp/judge.ts.
 */
import { clientIpOf, judgeUdp, parseDialAnswer, parseSeries, UDP_SERIES_COUNT } from "./judge.ts";
import type { UdpEnd, UdpMeasurement } from "./judge.ts";
import type { ClusterView } from "../../checks/types.ts";
import { activeGatewayPod, gatewayOf } from "../../liqo/lookups.ts";
import { udpDial, udpSeries } from "../commands.ts";
import type { ProbePod } from "../model.ts";
import type { ProbeRun, ProbeRunContext } from "../context.ts";

/** The node of the active gateway pod for `peerId` on a cluster, null when unknown. */
export function gatewayNode(view: ClusterView | null, peerId: string | null): string | null {
  if (!view || !peerId) return null;
  try {
    const gw = gatewayOf(view.inv, peerId);
    return (gw && activeGatewayPod(view.inv, gw)?.spec?.nodeName) ?? null;
  } catch {
    return null;
  }
}

/** The pod on `node` if there is one, else the first. */
export function podOnNode(pods: readonly ProbePod[], node: string | null): ProbePod | null {
  return (node ? pods.find((p) => p.node === node) : undefined) ?? pods[0] ?? null;
}

/** A fresh nonce: 8 chars [a-z0-9], so datagrams of this run cannot be mistaken for others. */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return [...bytes].map((b) => "abcdefghijklmnopqrstuvwxyz0123456789"[b % 36]).join("");
}

function firstLine(s: string): string {
  return s.trim().split("\n")[0]?.trim() ?? "";
}

/** Runs the series and the clientip dial (at once) and returns what they measured. */
export async function measureUdp(
  ctx: ProbeRunContext,
  count = UDP_SERIES_COUNT,
): Promise<UdpMeasurement | null> {
  const from = podOnNode(ctx.fleet.local, gatewayNode(ctx.local.view, ctx.peer));
  const to = podOnNode(ctx.fleet.remote, gatewayNode(ctx.remote?.view ?? null, ctx.local.view.clusterId));
  if (!from || !to) return null;
  const remoteName = ctx.remote?.view.name ?? ctx.peer;
  const end = (p: ProbePod, cluster: string): UdpEnd => ({ cluster, pod: p.name, node: p.node });
  const m: UdpMeasurement = {
    from: end(from, ctx.local.view.name),
    to: end(to, remoteName),
    address: ctx.addressing.dial(from, to),
    nonce: newNonce(),
    count,
    series: null,
    source: null,
    liqoNamespace: ctx.local.view.liqoNamespace ?? "liqo",
  };
  if (m.address.ip === null) return m;
  const ip = m.address.ip;
  ctx.progress(`udp: ${count} datagrams ${from.name} → ${to.name} (${ip})`);
  const [series, client] = await Promise.all([
    ctx.exec(from, udpSeries(ip, m.nonce, count)),
    ctx.exec(from, udpDial(ip, "clientip")),
  ]);
  if (!series.ok) m.series = { ok: false, reason: series.message };
  else {
    const lines = parseSeries(series.stdout);
    m.series = lines.length > 0 ? { ok: true, lines } : {
      ok: false,
      reason: `no output from the series script (exit ${series.exitCode}${
        firstLine(series.stderr) ? `: ${firstLine(series.stderr)}` : ""
      })`,
    };
  }
  const expected = ctx.addressing.expectedSource(from, to);
  if (!client.ok) m.source = { seen: null, error: client.message, expected };
  else if (client.exitCode !== 0) {
    m.source = { seen: null, error: `curl exit ${client.exitCode}: ${firstLine(client.stderr)}`, expected };
  } else {
    const answer = parseDialAnswer(client.stdout);
    const seen = clientIpOf(answer);
    m.source = { seen, error: seen ? null : answer?.errors[0] ?? "no answer", expected };
  }
  return m;
}

/** PROBE-UDP: loss, RTT, duplicates and the source address the far side saw. */
export async function runUdp(ctx: ProbeRunContext): Promise<ProbeRun> {
  const m = await measureUdp(ctx);
  if (!m) {
    const side = ctx.fleet.local.length === 0 ? ctx.local.view.name : ctx.remote?.view.name ?? ctx.peer;
    return { status: "unknown", summary: `no probe pod in ${side} to send or answer the datagrams` };
  }
  return judgeUdp(m);
}
