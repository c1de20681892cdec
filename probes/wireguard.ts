/**
 * WireGuard evidence: a tolerant parser for `wg show all dump` / `wg show <if> dump`, the two-sample
 * collector that execs it in the gateway's `wireguard` container, and small helpers for checks
 * (handshake age, counter rates, tunnel interfaces).
 *
 * The interface private key (second column of interface lines) is never stored in the result, logged
 * or echoed in a problem note; while a dump is parsed it is only compared with, so that no other line
 * carrying it (a repeated or re-columned interface line) is read as a peer.
 */
import type { ClusterSource, ExecOutcome } from "../kube/source.ts";
import { rest } from "../time.ts";
import type { WgEvidence, WgInterface, WgPeer, WgSample } from "./hub.ts";

/**
 * Result of parsing a dump: interfaces found, notes about what could not be read, and the lines that
 * could not be attributed to any interface (set only when there are some).
 */
export interface WgDumpParse {
  interfaces: WgInterface[];
  problems: string[];
  unreadableLines?: string[];
}

/** Container of the gateway pod that owns the WireGuard device (FACTS §4.2). */
export const WIREGUARD_CONTAINER = "wireguard";

/** Prefix of Liqo's WireGuard interfaces (`liqo-tunnel`, `liqo-tunnel1`…). */
export const TUNNEL_PREFIX = "liqo-tunnel";

/** Names of the peer columns of a dump (as in wg(8)), used in {@link WgPeer.unreadable} entries. */
export const PEER_FIELDS = {
  endpoint: "endpoint",
  allowedIps: "allowed-ips",
  handshake: "latest-handshake",
  rx: "transfer-rx",
  tx: "transfer-tx",
  keepalive: "persistent-keepalive",
} as const;

const IF_NAME = /^[A-Za-z0-9_.=+-]{1,15}$/;
const UINT = /^[0-9]+$/;
/** A base64 Curve25519 key as wg prints it. */
const KEY = /^[A-Za-z0-9+/]{43}=$/;
/** What an interface line has where a peer line has its endpoint: a listen port. */
const PORTISH = /^([0-9]+|off|\(none\))$/;
/** Looks like an endpoint (or a piece of one): used only to recognise peer lines with wrong column counts. */
const ENDPOINTISH = /^(\(none\)|[0-9A-Za-z%[\]-]*[.:][0-9A-Za-z.:%[\]-]*)$/;
const ENDPOINT = /^(\[[0-9A-Za-z:.%]+\]|[0-9A-Za-z.-]+):([0-9]{1,5})$/;
const CIDR = /^[0-9A-Fa-f.:]+\/[0-9]{1,3}$/;
const U64_MAX = (1n << 64n) - 1n;
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

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

/** The raw text of a field for a note: JSON-quoted (a newline shows as \n), cut at 40 characters. */
function quote(s: string): string {
  return JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);
}

type Read<T> = { value: T } | { bad: string };

/**
 * A u64 as wg prints it. Decision: counters stay exact — a number up to 2^53 − 1, a bigint above
 * (2^64 − 1 is a valid WireGuard counter, never rounded and never called unreadable); text, a sign,
 * or a value above 2^64 − 1 is unreadable.
 */
function readU64(field: string, s: string): Read<number | bigint> {
  if (!UINT.test(s)) return { bad: `${field}: ${quote(s)}` };
  const b = BigInt(s);
  if (b > U64_MAX) return { bad: `${field}: ${quote(s)} (above 2^64-1)` };
  return { value: b <= SAFE_MAX ? Number(b) : b };
}

/** The public key of a peer line, or null when the line has none usable. */
function peerKey(rest: string[]): string | null {
  const k = rest[0] ?? "";
  return k === "" || k === "(none)" || /\s/.test(k) ? null : k;
}

/**
 * Parses the peer columns after the interface name, field by field: an unreadable field is set to null
 * (or empty) and named in `unreadable`; the peer is kept as long as it has a public key. When the
 * column count is wrong the columns cannot be matched, so only the key is kept. The preshared key
 * (second column) is never read.
 */
function parsePeer(rest: string[], expected: number): { peer: WgPeer } | { error: string } {
  const publicKey = peerKey(rest);
  if (publicKey === null) return { error: "peer without a readable public key" };
  const peer: WgPeer = {
    publicKey,
    endpoint: null,
    allowedIps: [],
    latestHandshake: null,
    rxBytes: null,
    txBytes: null,
    persistentKeepalive: null,
  };
  const unreadable: string[] = [];
  if (rest.length !== expected) {
    const why = `columns cannot be matched (${rest.length} peer columns, expected ${expected})`;
    for (const f of Object.values(PEER_FIELDS)) unreadable.push(`${f}: ${why}`);
    return { peer: { ...peer, unreadable } };
  }
  const [, _psk, endpoint, allowed, handshake, rx, tx, keepalive] = rest;
  const withNewline = (field: string, v: string): boolean => {
    if (!/[\r\n]/.test(v)) return false;
    unreadable.push(`${field}: ${quote(v)} (line break inside the field)`);
    return true;
  };

  if (!withNewline(PEER_FIELDS.endpoint, endpoint) && endpoint !== "(none)" && endpoint !== "") {
    const m = ENDPOINT.exec(endpoint);
    if (m && Number(m[2]) <= 65535) peer.endpoint = endpoint;
    else unreadable.push(`${PEER_FIELDS.endpoint}: ${quote(endpoint)}`);
  }
  if (!withNewline(PEER_FIELDS.allowedIps, allowed) && allowed !== "(none)" && allowed !== "") {
    const list = allowed.split(",").map((a) => a.trim()).filter((a) => a !== "");
    peer.allowedIps = list.filter((a) => CIDR.test(a));
    const bad = list.filter((a) => !CIDR.test(a));
    if (bad.length > 0) unreadable.push(`${PEER_FIELDS.allowedIps}: ${quote(bad.join(","))}`);
  }
  if (!withNewline(PEER_FIELDS.handshake, handshake)) {
    const h = readU64(PEER_FIELDS.handshake, handshake);
    if ("bad" in h) unreadable.push(h.bad);
    else if (typeof h.value === "bigint") {
      unreadable.push(`${PEER_FIELDS.handshake}: ${quote(handshake)} (not a plausible time)`);
    } else peer.latestHandshake = h.value;
  }
  for (const [field, v, key] of [[PEER_FIELDS.rx, rx, "rxBytes"], [PEER_FIELDS.tx, tx, "txBytes"]] as const) {
    if (withNewline(field, v)) continue;
    const r = readU64(field, v);
    if ("bad" in r) unreadable.push(r.bad);
    else peer[key] = r.value;
  }
  if (!withNewline(PEER_FIELDS.keepalive, keepalive) && keepalive !== "off" && keepalive !== "0") {
    const k = parseUint(keepalive);
    if (k === null || k > 65535) unreadable.push(`${PEER_FIELDS.keepalive}: ${quote(keepalive)}`);
    else peer.persistentKeepalive = k;
  }
  return { peer: unreadable.length > 0 ? { ...peer, unreadable } : peer };
}

/**
 * Parses the 4 interface columns after the name (private key dropped); null if malformed. The two key
 * columns must look like wg prints them — two keys, or "(none)" twice (no private key, no public
 * key) — otherwise the columns are shifted and the "public key" could be the private one.
 */
function parseInterface(name: string, f: string[]): WgInterface | null {
  // f = [privateKey, publicKey, listenPort, fwmark]; of f[0] only the shape is looked at.
  const publicKey = f[1];
  if (!publicKey) return null;
  // The private column may already be scrubbed (a collected bundle writes a marker such as
  // "(redacted)" in its place): a non-key there is fine as long as it is not the public key itself.
  const scrubbed = /^\([a-z-]+\)$/.test(f[0]) && f[0] !== "(none)";
  const keys = (KEY.test(f[0]) || scrubbed) && KEY.test(publicKey) && f[0] !== publicKey;
  if (!keys && !(f[0] === "(none)" && publicKey === "(none)")) return null;
  const port = f[2] === "off" || f[2] === "(none)" ? null : parseUint(f[2]);
  if (port !== null && port > 65535) return null;
  return { name, publicKey: publicKey === "(none)" ? "" : publicKey, listenPort: port, peers: [] };
}

/**
 * What a line is. Exact column counts decide as wg prints them; otherwise a line is taken as a peer
 * line only when its interface line was already seen (wg prints it first), it does not repeat the
 * interface's public key, and its columns look like a peer's (preshared key, then an endpoint) — so a
 * garbled interface line, which carries the private key, is never read as a peer.
 */
function classify(
  n: number,
  rest: string[],
  itf: WgInterface | undefined,
  ifFields: number,
  peerFields: number,
  privateKeys: ReadonlySet<string>,
): "interface" | "peer" | null {
  if (n === ifFields && PORTISH.test(rest[2] ?? "")) return "interface";
  // A line that carries an interface key (a repeated, re-columned interface line) is never a peer.
  if (rest.some((v) => privateKeys.has(v))) return null;
  if (n === peerFields) return "peer";
  if (!itf || rest.length < 2) return null;
  if (rest.some((v) => v !== "" && v === itf.publicKey)) return null;
  const pskLike = rest[1] === "(none)" || KEY.test(rest[1]);
  if (pskLike && rest.length >= 3 && ENDPOINTISH.test(rest[2])) return "peer";
  // The preshared-key column itself missing: the endpoint comes second.
  if (!pskLike && ENDPOINTISH.test(rest[1]) && /[.:]/.test(rest[1])) return "peer";
  return null;
}

function parseLines(
  text: string,
  fixedIf: string | null,
): WgDumpParse {
  const interfaces: WgInterface[] = [];
  const problems: string[] = [];
  const unattributed: string[] = [];
  const byName = new Map<string, WgInterface>();
  /** Private keys of the interface lines read: never output, only compared with (see classify). */
  const privateKeys = new Set<string>();
  /** Interfaces whose own line was read (wg prints it once, before its peers). */
  const declared = new Set<string>();
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
  /** Records a line that could not be read; never echoes it (an interface line carries the private key). */
  const unreadableLine = (lineNo: number, why: string, itf?: WgInterface): void => {
    const note = `line ${lineNo}: skipped, ${why}`;
    problems.push(note);
    if (itf) (itf.unreadableLines ??= []).push(note);
    else unattributed.push(note);
  };
  const ifFields = fixedIf === null ? 5 : 4;
  const peerFields = fixedIf === null ? 9 : 8;
  const lines = typeof text === "string" ? text.split(/\r?\n|\r/) : [];
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const raw = lines[i];
    if (raw.trim() === "") continue;
    let f = splitFields(raw);
    const name = fixedIf ?? f[0];
    if (!IF_NAME.test(name)) {
      unreadableLine(lineNo, "unusable interface name");
      continue;
    }
    let rest = fixedIf === null ? f.slice(1) : f;
    const itf = byName.get(name);
    let kind = classify(f.length, rest, itf, ifFields, peerFields, privateKeys);
    // A line break inside a field splits a peer line in two: join it with the next line when that one
    // cannot start a line of its own and the two together have the peer's column count.
    if (kind === "peer" && f.length < peerFields && i + 1 < lines.length) {
      const g = splitFields(lines[i + 1]);
      const joined = [...f.slice(0, -1), `${f[f.length - 1]}\n${g[0]}`, ...g.slice(1)];
      const carriesKey = g.some((v) => privateKeys.has(v));
      if ((fixedIf !== null || !IF_NAME.test(g[0])) && joined.length === peerFields && !carriesKey) {
        f = joined;
        rest = fixedIf === null ? f.slice(1) : f;
        kind = "peer";
        problems.push(`line ${lineNo}: a line break inside a field, joined with line ${lineNo + 1}`);
        i++;
      }
    }
    if (kind === null) {
      unreadableLine(
        lineNo,
        `not an interface nor a peer line (${f.length} fields, expected ${ifFields} or ${peerFields})`,
        itf,
      );
      continue;
    }
    if (kind === "interface") {
      // In single-interface mode only the first line is the interface line. In `all` mode a second
      // one for an interface already read is a cut peer line (e.g. `name key (none) (none) 10.0`) or
      // a repeated line: it must neither replace the interface's key nor silently drop a peer.
      if (fixedIf !== null && itf) {
        unreadableLine(lineNo, `second interface line for ${name}`, itf);
        continue;
      }
      if (declared.has(name)) {
        unreadableLine(
          lineNo,
          `${f.length} fields after the interface line of ${name} (a cut peer line?)`,
          itf,
        );
        continue;
      }
      // The private key is held for this parse only, to refuse any other line that carries it.
      if (KEY.test(rest[0] ?? "")) privateKeys.add(rest[0]);
      const parsed = parseInterface(name, rest);
      if (parsed === null) {
        unreadableLine(lineNo, `malformed interface line for ${name}`, itf);
        continue;
      }
      if (itf) {
        itf.publicKey = parsed.publicKey;
        itf.listenPort = parsed.listenPort;
      } else {
        byName.set(name, parsed);
        interfaces.push(parsed);
      }
      declared.add(name);
      continue;
    }
    const parsed = parsePeer(rest, peerFields - (fixedIf === null ? 1 : 0));
    if ("error" in parsed) {
      unreadableLine(lineNo, `${parsed.error} on ${name}`, itf ?? ensure(name, lineNo));
      continue;
    }
    ensure(name, lineNo).peers.push(parsed.peer);
    if (parsed.peer.unreadable) {
      problems.push(
        `line ${lineNo}: peer ${parsed.peer.publicKey.slice(0, 10)}… on ${name} kept, unreadable ${
          parsed.peer.unreadable.join("; ")
        }`,
      );
    }
  }
  return unattributed.length > 0
    ? { interfaces, problems, unreadableLines: unattributed }
    : { interfaces, problems };
}

/**
 * Parses `wg show all dump`. Interface lines have 5 tab-separated fields (name, private key,
 * public key, listen port, fwmark), peer lines 9 (name, public key, preshared key, endpoint,
 * allowed IPs, latest handshake, rx, tx, persistent keepalive). Tolerates CRLF, trailing
 * whitespace, space-separated columns, "(none)" values and empty output. A peer line is read field by
 * field: an unreadable field is null and named in `unreadable`, the peer (its public key) is kept;
 * lines that cannot be read at all are skipped with a note (kept per interface in `unreadableLines`).
 * The private and preshared keys are never kept. Never throws. `takenAt` is accepted for symmetry
 * with {@link toSample}.
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
  return parse.unreadableLines?.length
    ? { takenAt, interfaces: parse.interfaces, unreadableLines: parse.unreadableLines }
    : { takenAt, interfaces: parse.interfaces };
}

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
): Promise<WgEvidence> {
  if (signal?.aborted) return { ok: false, namespace: ns, pod, reason: "error", message: "aborted" };
  const first = await takeSample(source, ns, pod);
  if (!first.ok) return { ok: false, namespace: ns, pod, reason: first.reason, message: first.message };
  const notes = first.problems.map((p) => `first sample: ${p}`);
  if (first.sample.interfaces.length === 0) notes.push("no WireGuard interfaces in the pod");

  const [waited, mtus] = await Promise.all([
    // A snapshot replays captured output: waiting would not make its counters move.
    source.isSnapshot ? Promise.resolve(!signal?.aborted) : rest(intervalMs, signal),
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
