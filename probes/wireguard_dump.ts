/**
 * The parser of `wg show all dump` / `wg show <if> dump`: pure, tolerant, never throws. The exec
 * that produces the dump is probes/wireguard.ts.
 *
 * The interface private key (second column of interface lines) is never stored in the result, logged
 * or echoed in a problem note; while a dump is parsed it is only compared with, so that no other line
 * carrying it (a repeated or re-columned interface line) is read as a peer.
 */
import type { WgInterface, WgPeer, WgSample } from "./hub.ts";

/**
 * Result of parsing a dump: interfaces found, notes about what could not be read, and the lines that
 * could not be attributed to any interface (set only when there are some).
 */
export interface WgDumpParse {
  interfaces: WgInterface[];
  problems: string[];
  unreadableLines?: string[];
}

/** Names of the peer columns of a dump (as in wg(8)), used in {@link WgPeer.unreadable} entries. */
export const PEER_FIELDS = {
  endpoint: "endpoint",
  allowedIps: "allowed-ips",
  handshake: "latest-handshake",
  rx: "transfer-rx",
  tx: "transfer-tx",
  keepalive: "persistent-keepalive",
} as const;

/** A Linux interface name (at most 15 characters, no slash or space). */
export const IF_NAME = /^[A-Za-z0-9_.=+-]{1,15}$/;
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

/** A decimal unsigned integer within the safe range, else null. */
export function parseUint(s: string): number | null {
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
