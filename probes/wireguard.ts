/**
 * WireGuard evidence: a tolerant parser for `wg show all dump` / `wg show <if> dump`, the two-sample
 * collector that execs it in the gateway's `wireguard` container, and small helpers for checks
 * (handshake age, counter rates, tunnel interfaces).
 *
 * The interface private key (second column of interface lines) is dropped while splitting the
 * line and never stored, logged or echoed in a problem note.
 */
import type { ClusterSource, ExecOutcome } from "../kube/source.ts";
import type { WgEvidence, WgInterface, WgPeer, WgSample } from "./hub.ts";

/** Result of parsing a dump: interfaces found and notes about lines that were skipped. */
export interface WgDumpParse {
  interfaces: WgInterface[];
  problems: string[];
}

/** Container of the gateway pod that owns the WireGuard device (FACTS §4.2). */
export const WIREGUARD_CONTAINER = "wireguard";

/** Prefix of Liqo's WireGuard interfaces (`liqo-tunnel`, `liqo-tunnel1`…). */
export const TUNNEL_PREFIX = "liqo-tunnel";

const IF_NAME = /^[A-Za-z0-9_.=+-]{1,15}$/;
const UINT = /^[0-9]+$/;

function splitFields(line: string): string[] {
  const byTab = line.split("\t").map((f) => f.trim());
  if (byTab.length > 1) return byTab;
  return line.trim().split(/\s+/);
}

function parseUint(s: string): number | null {
  if (!UINT.test(s)) return null;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : null;
}

/** Parses the 8 peer columns after the interface name; null (with reason) if malformed. */
function parsePeer(f: string[]): { peer: WgPeer } | { error: string } {
  const [publicKey, _psk, endpoint, allowed, handshake, rx, tx, keepalive] = f;
  if (!publicKey || publicKey === "(none)") return { error: "peer without a public key" };
  const latestHandshake = parseUint(handshake);
  const rxBytes = parseUint(rx);
  const txBytes = parseUint(tx);
  if (latestHandshake === null || rxBytes === null || txBytes === null) {
    return { error: "peer with non-numeric handshake or transfer counters" };
  }
  let persistentKeepalive: number | null = null;
  if (keepalive !== "off" && keepalive !== "0") {
    persistentKeepalive = parseUint(keepalive);
    if (persistentKeepalive === null) return { error: "peer with an unreadable persistent-keepalive" };
  }
  const allowedIps = allowed === "(none)" || allowed === ""
    ? []
    : allowed.split(",").map((a) => a.trim()).filter((a) => a !== "");
  return {
    peer: {
      publicKey,
      endpoint: endpoint === "(none)" || endpoint === "" ? null : endpoint,
      allowedIps,
      latestHandshake,
      rxBytes,
      txBytes,
      persistentKeepalive,
    },
  };
}

/** Parses the 4 interface columns after the name (private key dropped); null if malformed. */
function parseInterface(name: string, f: string[]): WgInterface | null {
  // f = [privateKey, publicKey, listenPort, fwmark]; f[0] is deliberately never read.
  const publicKey = f[1];
  if (!publicKey) return null;
  const port = f[2] === "off" || f[2] === "(none)" ? null : parseUint(f[2]);
  if (port !== null && port > 65535) return null;
  return { name, publicKey: publicKey === "(none)" ? "" : publicKey, listenPort: port, peers: [] };
}

function parseLines(
  text: string,
  fixedIf: string | null,
): WgDumpParse {
  const interfaces: WgInterface[] = [];
  const problems: string[] = [];
  const byName = new Map<string, WgInterface>();
  const ensure = (name: string, lineNo: number): WgInterface => {
    let itf = byName.get(name);
    if (!itf) {
      itf = { name, publicKey: "", listenPort: null, peers: [] };
      byName.set(name, itf);
      interfaces.push(itf);
      problems.push(`line ${lineNo}: peer listed before its interface ${name}`);
    }
    return itf;
  };
  const ifFields = fixedIf === null ? 5 : 4;
  const peerFields = fixedIf === null ? 9 : 8;
  const lines = typeof text === "string" ? text.split(/\r?\n|\r/) : [];
  lines.forEach((raw, i) => {
    const lineNo = i + 1;
    if (raw.trim() === "") return;
    const f = splitFields(raw);
    if (f.length !== ifFields && f.length !== peerFields) {
      // Never echo the line: an interface line carries the private key.
      problems.push(`line ${lineNo}: skipped, expected ${ifFields} or ${peerFields} fields, got ${f.length}`);
      return;
    }
    const name = fixedIf ?? f[0];
    const rest = fixedIf === null ? f.slice(1) : f;
    if (!IF_NAME.test(name)) {
      problems.push(`line ${lineNo}: skipped, unusable interface name`);
      return;
    }
    if (f.length === ifFields) {
      // In single-interface mode only the first line is the interface line.
      if (fixedIf !== null && byName.has(name)) {
        problems.push(`line ${lineNo}: skipped, second interface line for ${name}`);
        return;
      }
      const itf = parseInterface(name, rest);
      if (itf === null) {
        problems.push(`line ${lineNo}: skipped, malformed interface line for ${name}`);
        return;
      }
      const existing = byName.get(name);
      if (existing) {
        existing.publicKey = itf.publicKey;
        existing.listenPort = itf.listenPort;
      } else {
        byName.set(name, itf);
        interfaces.push(itf);
      }
      return;
    }
    const parsed = parsePeer(rest);
    if ("error" in parsed) {
      problems.push(`line ${lineNo}: skipped, ${parsed.error} on ${name}`);
      return;
    }
    ensure(name, lineNo).peers.push(parsed.peer);
  });
  return { interfaces, problems };
}

/**
 * Parses `wg show all dump`. Interface lines have 5 tab-separated fields (name, private key,
 * public key, listen port, fwmark), peer lines 9 (name, public key, preshared key, endpoint,
 * allowed IPs, latest handshake, rx, tx, persistent keepalive). Tolerates CRLF, trailing
 * whitespace, space-separated columns, "(none)" values and empty output; garbled lines are
 * skipped with a note. Never throws. `takenAt` is accepted for symmetry with {@link toSample}.
 */
export function parseWgDump(text: string, _takenAt?: number): WgDumpParse {
  return parseLines(text, null);
}

/** Parses `wg show <ifName> dump` (same as {@link parseWgDump} without the leading name column). */
export function parseSingleInterfaceDump(ifName: string, text: string, _takenAt?: number): WgDumpParse {
  if (!IF_NAME.test(ifName)) return { interfaces: [], problems: [`unusable interface name`] };
  return parseLines(text, ifName);
}

/** Wraps a parse result into a {@link WgSample} taken at `takenAt` (ms since the epoch). */
export function toSample(parse: WgDumpParse, takenAt: number): WgSample {
  return { takenAt, interfaces: parse.interfaces };
}

/** Interfaces whose name starts with `liqo-tunnel`. */
export function tunnelInterfaces(sample: WgSample): WgInterface[] {
  return sample.interfaces.filter((i) => i.name.startsWith(TUNNEL_PREFIX));
}

/** Seconds since the peer's latest handshake, or null if it never completed one (never negative). */
export function handshakeAgeSeconds(peer: WgPeer, nowMs: number): number | null {
  if (!peer.latestHandshake) return null;
  return Math.max(0, Math.floor(nowMs / 1000) - peer.latestHandshake);
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

/**
 * Per interface/peer rx/tx rates between two samples, for peers present in both (matched by
 * interface name and public key). Empty when the samples are not in chronological order.
 */
export function rates(first: WgSample, second: WgSample): PeerRate[] {
  const seconds = (second.takenAt - first.takenAt) / 1000;
  if (!(seconds > 0)) return [];
  const out: PeerRate[] = [];
  for (const itf of first.interfaces) {
    const later = second.interfaces.find((i) => i.name === itf.name);
    if (!later) continue;
    for (const p of itf.peers) {
      const q = later.peers.find((x) => x.publicKey === p.publicKey);
      if (!q) continue;
      const rxDelta = q.rxBytes - p.rxBytes;
      const txDelta = q.txBytes - p.txBytes;
      const reset = rxDelta < 0 || txDelta < 0;
      out.push({
        interface: itf.name,
        publicKey: p.publicKey,
        seconds,
        rxDelta,
        txDelta,
        rxPerSec: reset ? null : rxDelta / seconds,
        txPerSec: reset ? null : txDelta / seconds,
        reset,
      });
    }
  }
  return out;
}

function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, Math.max(0, ms));
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
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
): Promise<WgEvidence> {
  if (signal?.aborted) return { ok: false, namespace: ns, pod, reason: "error", message: "aborted" };
  const first = await takeSample(source, ns, pod);
  if (!first.ok) return { ok: false, namespace: ns, pod, reason: first.reason, message: first.message };
  const notes = first.problems.map((p) => `first sample: ${p}`);
  if (first.sample.interfaces.length === 0) notes.push("no WireGuard interfaces in the pod");

  const [waited, mtus] = await Promise.all([
    // A snapshot replays captured output: waiting would not make its counters move.
    source.isSnapshot ? Promise.resolve(!signal?.aborted) : sleep(intervalMs, signal),
    Promise.all(first.sample.interfaces.map((i) => readMtu(source, ns, pod, i.name))),
  ]);
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
  return { ok: true, namespace: ns, pod, via: first.via, first: first.sample, second, mtu, notes };
}
