/**
 * WireGuard evidence: the two-sample collector that execs `wg show all dump` in the gateway's
 * `wireguard` container (parsed by wireguard_dump.ts), and small helpers for checks (handshake age,
 * counter rates, tunnel interfaces).
 */
import type { ClusterSource, ExecOutcome } from "../kube/source.ts";
import { rest } from "../time.ts";
import type { WgEvidence, WgInterface, WgPeer, WgSample } from "./hub.ts";
import { IF_NAME, parseUint, parseWgDump, PEER_FIELDS, toSample } from "./wireguard_dump.ts";

/** Container of the gateway pod that owns the WireGuard device (Liqo's gateway templates). */
export const WIREGUARD_CONTAINER = "wireguard";

/** Prefix of Liqo's WireGuard interfaces (`liqo-tunnel`, `liqo-tunnel1`…). */
export const TUNNEL_PREFIX = "liqo-tunnel";

/** The pod's own interface, over which WireGuard's UDP and the nodes' Geneve travel. */
export const UNDERLAY_IF = "eth0";

/** Interfaces whose name starts with `liqo-tunnel`. */
export function tunnelInterfaces(sample: WgSample): WgInterface[] {
  return sample.interfaces.filter((i) => i.name.startsWith(TUNNEL_PREFIX));
}

/** The unreadable entries of a peer for one field (see {@link PEER_FIELDS}). */
export function unreadableField(peer: WgPeer, field: string): string[] {
  return (peer.unreadable ?? []).filter((u) => u.startsWith(`${field}:`));
}

/**
 * Seconds since the peer's latest handshake, or null if it never completed one or the field is
 * unreadable (use {@link handshakeReading} to tell them apart). Never negative.
 */
export function handshakeAgeSeconds(peer: WgPeer, nowMs: number): number | null {
  if (!peer.latestHandshake) return null;
  return Math.max(0, Math.floor(nowMs / 1000) - peer.latestHandshake);
}

/** The latest handshake of a peer: its age, never, or unreadable (with the parse problem). */
export type HandshakeReading =
  | { kind: "age"; seconds: number }
  | { kind: "never" }
  | { kind: "unreadable"; problem: string };

/** Reads the latest handshake of a peer as an age at `nowMs`, "never", or "unreadable". */
export function handshakeReading(peer: WgPeer, nowMs: number): HandshakeReading {
  if (peer.latestHandshake === null) {
    const problem = unreadableField(peer, PEER_FIELDS.handshake)[0] ?? `${PEER_FIELDS.handshake}: unreadable`;
    return { kind: "unreadable", problem };
  }
  const age = handshakeAgeSeconds(peer, nowMs);
  return age === null ? { kind: "never" } : { kind: "age", seconds: age };
}

/** Transfer-counter movement of one peer between two samples. */
export interface PeerRate {
  interface: string;
  publicKey: string;
  /** Seconds between the samples. */
  seconds: number;
  rxDelta: number;
  txDelta: number;
  /** Bytes per second; null when the counters went backwards (interface recreated). */
  rxPerSec: number | null;
  txPerSec: number | null;
  /** True when a counter decreased between samples. */
  reset: boolean;
}

/** A peer present in both samples whose counters could not be read in one of them. */
export interface UnreadableCounters {
  interface: string;
  publicKey: string;
  /** The parse problems, e.g. `transfer-rx: "abc"`. */
  problems: string[];
}

function counterPairs(
  first: WgSample,
  second: WgSample,
): { itf: string; p: WgPeer; q: WgPeer }[] {
  const out: { itf: string; p: WgPeer; q: WgPeer }[] = [];
  for (const itf of first.interfaces) {
    const later = second.interfaces.find((i) => i.name === itf.name);
    if (!later) continue;
    for (const p of itf.peers) {
      const q = later.peers.find((x) => x.publicKey === p.publicKey);
      if (q) out.push({ itf: itf.name, p, q });
    }
  }
  return out;
}

/**
 * Per interface/peer rx/tx rates between two samples, for peers present in both (matched by
 * interface name and public key) whose counters are readable in both (see
 * {@link unreadableCounters} for the others). Deltas are computed exactly (bigint), so counters near
 * 2^64 − 1 still move by the right amount. Empty when the samples are not in chronological order.
 */
export function rates(first: WgSample, second: WgSample): PeerRate[] {
  const seconds = (second.takenAt - first.takenAt) / 1000;
  if (!(seconds > 0)) return [];
  const out: PeerRate[] = [];
  for (const { itf, p, q } of counterPairs(first, second)) {
    if (p.rxBytes === null || p.txBytes === null || q.rxBytes === null || q.txBytes === null) continue;
    const rxDelta = Number(BigInt(q.rxBytes) - BigInt(p.rxBytes));
    const txDelta = Number(BigInt(q.txBytes) - BigInt(p.txBytes));
    const reset = rxDelta < 0 || txDelta < 0;
    out.push({
      interface: itf,
      publicKey: p.publicKey,
      seconds,
      rxDelta,
      txDelta,
      rxPerSec: reset ? null : rxDelta / seconds,
      txPerSec: reset ? null : txDelta / seconds,
      reset,
    });
  }
  return out;
}

/** Peers present in both samples whose transfer counters are unreadable in either. */
export function unreadableCounters(first: WgSample, second: WgSample): UnreadableCounters[] {
  const out: UnreadableCounters[] = [];
  for (const { itf, p, q } of counterPairs(first, second)) {
    if (p.rxBytes !== null && p.txBytes !== null && q.rxBytes !== null && q.txBytes !== null) continue;
    const problems = [p, q].flatMap((x) => [
      ...unreadableField(x, PEER_FIELDS.rx),
      ...unreadableField(x, PEER_FIELDS.tx),
    ]);
    out.push({
      interface: itf,
      publicKey: p.publicKey,
      problems: problems.length > 0 ? [...new Set(problems)] : ["transfer counters unreadable"],
    });
  }
  return out;
}

function execFailure(outcome: Extract<ExecOutcome, { ok: false }>): string {
  switch (outcome.reason) {
    case "forbidden":
      return `exec forbidden: ${outcome.message}`;
    case "missing":
      return `pod or container not found: ${outcome.message}`;
    default:
      return `exec failed: ${outcome.message}`;
  }
}

function wgFailure(stdout: string, stderr: string, exitCode: number): string {
  const text = (stderr.trim() || stdout.trim() || "no output").split(/\r?\n/).slice(0, 3).join(" / ");
  return `wg failed (exit ${exitCode}): ${text}`;
}

type SampleOutcome =
  | { ok: true; sample: WgSample; problems: string[]; via: "api" | "kubectl" | "snapshot" }
  | { ok: false; reason: "forbidden" | "missing" | "error"; message: string };

async function takeSample(
  source: ClusterSource,
  ns: string,
  pod: string,
): Promise<SampleOutcome> {
  let outcome: ExecOutcome;
  try {
    outcome = await source.exec(ns, pod, WIREGUARD_CONTAINER, ["wg", "show", "all", "dump"]);
  } catch (e) {
    return {
      ok: false,
      reason: "error",
      message: `exec failed: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
  if (!outcome.ok) return { ok: false, reason: outcome.reason, message: execFailure(outcome) };
  if (outcome.exitCode !== 0) {
    return {
      ok: false,
      reason: "error",
      message: wgFailure(outcome.stdout, outcome.stderr, outcome.exitCode),
    };
  }
  // A snapshot replays the capture time of each sample, so rates use the original spacing.
  const takenAt = outcome.takenAt ?? source.now().getTime();
  const parsed = parseWgDump(outcome.stdout, takenAt);
  return { ok: true, sample: toSample(parsed, takenAt), problems: parsed.problems, via: outcome.via };
}

async function readMtu(
  source: ClusterSource,
  ns: string,
  pod: string,
  ifName: string,
): Promise<{ name: string; mtu: number | null; note?: string }> {
  if (!IF_NAME.test(ifName) || ifName === "." || ifName === "..") {
    return { name: ifName, mtu: null, note: `MTU not read: unusable interface name` };
  }
  try {
    const out = await source.exec(ns, pod, WIREGUARD_CONTAINER, ["cat", `/sys/class/net/${ifName}/mtu`]);
    if (!out.ok) return { name: ifName, mtu: null, note: `MTU of ${ifName}: ${execFailure(out)}` };
    const mtu = parseUint(out.stdout.trim());
    if (out.exitCode !== 0 || mtu === null || mtu === 0) {
      return { name: ifName, mtu: null, note: `MTU of ${ifName} unreadable (exit ${out.exitCode})` };
    }
    return { name: ifName, mtu };
  } catch (e) {
    return {
      name: ifName,
      mtu: null,
      note: `MTU of ${ifName}: ${e instanceof Error ? e.message : String(e)}`,
    };
  }
}

/**
 * Runs `wg show all dump` in container `wireguard` of `ns/pod`, waits `intervalMs`, runs it again,
 * and meanwhile reads each interface's MTU from /sys/class/net/<if>/mtu. A failed first exec (or a
 * non-zero `wg` exit) gives `ok: false`; a failed second sample or MTU read only adds a note.
 * Never throws.
 */
export async function collectWireguard(
  source: ClusterSource,
  ns: string,
  pod: string,
  intervalMs: number,
  signal?: AbortSignal,
  /** Told once the first sample is in (or failed): a fleet run holds its other reads until then. */
  onFirst?: () => void,
): Promise<WgEvidence> {
  if (signal?.aborted) return { ok: false, namespace: ns, pod, reason: "error", message: "aborted" };
  const first = await takeSample(source, ns, pod);
  onFirst?.();
  if (!first.ok) return { ok: false, namespace: ns, pod, reason: first.reason, message: first.message };
  const notes = first.problems.map((p) => `first sample: ${p}`);
  if (first.sample.interfaces.length === 0) notes.push("no WireGuard interfaces in the pod");

  const [waited, mtus, eth] = await Promise.all([
    // A snapshot replays captured output: waiting would not make its counters move.
    source.isSnapshot ? Promise.resolve(!signal?.aborted) : rest(intervalMs, signal),
    Promise.all(first.sample.interfaces.map((i) => readMtu(source, ns, pod, i.name))),
    // The underlay the tunnel runs over: the pod's eth0 (TUN-07 judges the tunnel MTU against it).
    readMtu(source, ns, pod, UNDERLAY_IF),
  ]);
  const underlay = { iface: UNDERLAY_IF, mtu: eth.mtu, ...(eth.note ? { note: eth.note } : {}) };
  const mtu: Record<string, number> = {};
  for (const m of mtus) {
    if (m.mtu !== null) mtu[m.name] = m.mtu;
    if (m.note) notes.push(m.note);
  }

  let second: WgSample | null = null;
  if (!waited) {
    notes.push("second sample skipped: aborted");
  } else {
    const s = await takeSample(source, ns, pod);
    if (s.ok && s.sample.takenAt <= first.sample.takenAt) {
      notes.push("only one sample available (snapshot or clock did not advance): counter movement unknown");
    } else if (s.ok) {
      second = s.sample;
      notes.push(...s.problems.map((p) => `second sample: ${p}`));
    } else {
      notes.push(`second sample failed: ${s.message}`);
    }
  }
  return { ok: true, namespace: ns, pod, via: first.via, first: first.sample, second, mtu, underlay, notes };
}
