/**
 * PROBE-UDP: a series of nonce-numbered datagrams from one local probe pod to one remote probe pod
 * through the tunnel (active/commands.ts udpSeries), and one netexec `clientip` dial to learn
 * the source address the far side saw. The local pod is the one on the gateway's node when there
 * is one (its traffic skips the Geneve hop: the tunnel alone is measured), else the first; the
 * remote pod likewise on the peer's gateway node when known. Judged by active/udp/judge.ts.
 */
import { clientIpOf, judgeUdp, parseDialAnswer, parseSeries, UDP_SERIES_COUNT } from "./judge.ts";
import type { SeriesLine, UdpEnd, UdpMeasurement } from "./judge.ts";
import type { ClusterView } from "../../checks/types.ts";
import { activeGatewayPod, gatewayOf } from "../../liqo/lookups.ts";
import { UDP_DATAGRAM_WAIT_S, udpDial, udpSeries } from "../commands.ts";
import type { ExecOutcome } from "../../kube/source.ts";
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

/** The client's exec limit when the target does not say (kube/live/client.ts's default). */
export const DEFAULT_EXEC_LIMIT_MS = 15_000;

/** Kept free inside the exec limit for the exec's own round trips (API server, kubelet, shell). */
export const EXEC_HEADROOM_MS = 2_000;

/** One exec's share of the series: datagrams `first` … `first + count - 1`. */
export interface SeriesBatch {
  first: number;
  count: number;
}

/**
 * Splits `count` datagrams into batches whose worst case (every datagram lost, each waiting
 * {@link UDP_DATAGRAM_WAIT_S}) ends inside `execLimitMs` less {@link EXEC_HEADROOM_MS}: loss then
 * shows as loss, never as an exec that timed out. At least one datagram per batch.
 */
export function seriesBatches(count: number, execLimitMs: number): SeriesBatch[] {
  const size = Math.max(1, Math.floor((execLimitMs - EXEC_HEADROOM_MS) / (UDP_DATAGRAM_WAIT_S * 1000)));
  const out: SeriesBatch[] = [];
  for (let first = 1; first <= count; first += size) {
    out.push({ first, count: Math.min(size, count - first + 1) });
  }
  return out;
}

/** Parses one batch's exec: its lines, or why it measured nothing. */
function readBatch(out: ExecOutcome, b: SeriesBatch): { lines: SeriesLine[] } | { reason: string } {
  const span = b.count === 1 ? `datagram ${b.first}` : `datagrams ${b.first}-${b.first + b.count - 1}`;
  if (!out.ok) return { reason: `${span}: ${out.message}` };
  const lines = parseSeries(out.stdout);
  if (lines.length > 0) return { lines };
  const err = firstLine(out.stderr);
  return {
    reason: `${span}: no output from the series script (exit ${out.exitCode}${err ? `: ${err}` : ""})`,
  };
}

/** Runs the series (in batches, at once) and the clientip dial and returns what they measured. */
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
  const batches = seriesBatches(count, ctx.local.target.client?.timeoutMs ?? DEFAULT_EXEC_LIMIT_MS);
  const [outs, client] = await Promise.all([
    Promise.all(batches.map((b) => ctx.exec(from, udpSeries(ip, m.nonce, b.count, b.first)))),
    ctx.exec(from, udpDial(ip, "clientip")),
  ]);
  const read = outs.map((o, i) => ({ batch: batches[i], r: readBatch(o, batches[i]) }));
  const measured = read.filter((x) => "lines" in x.r);
  const failed = read.flatMap((x) => "reason" in x.r ? [x.r.reason] : []);
  if (measured.length === 0) m.series = { ok: false, reason: failed.join("; ") };
  else {
    // Only the datagrams of batches that ran are judged; the others are named, not counted as lost.
    m.count = measured.reduce((n, x) => n + x.batch.count, 0);
    m.series = {
      ok: true,
      lines: measured.flatMap((x) => "lines" in x.r ? x.r.lines : []),
      ...(failed.length ? { notMeasured: failed } : {}),
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
