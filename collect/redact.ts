/**
 * Redaction for support bundles (`flyingfish collect`). Redaction is *by construction*: secrets are
 * reduced to public facts before anything is written, and every text that leaves the cluster goes
 * through a conservative scrubber. Optional IP pseudonymisation (`--redact-ips`) maps IPv4
 * addresses with a keyed, prefix-preserving scheme so CIDR relationships survive.
 *
 * Pitfalls this guards against (ANCHORS §3 item 14): `last-applied-configuration` leaking whole
 * secrets, `managedFields` noise, private keys in command output, and over-redaction of IP addresses
 * that destroys network evidence (IP pseudonymisation is opt-in and keeps address classes).
 */
import { createHmac } from "node:crypto";
import type { K8sObject } from "../kube/source.ts";

/** Text that replaces a redacted value. */
export const REDACTED = "(redacted)";

const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";
/** Secret data keys that may be written (public by nature). */
const KEPT_SECRET_KEYS: ReadonlySet<string> = new Set(["publicKey"]);
/** Env var names whose literal values are never written. */
const SENSITIVE_NAME = /token|passw|secret|private|credential|api[-_]?key|client[-_]?key|auth/i;

/**
 * Re-asserts, on a deep copy, what must never be written for an object: `metadata.managedFields`
 * and the last-applied-configuration annotation on every object; on Secrets, every `data` key but
 * `publicKey` and all of `stringData`; on pods (and pod templates), literal values of environment
 * variables whose name looks sensitive. The live source already does the Secret part on read;
 * this is the writer's own guarantee.
 */
export function redactObject(obj: K8sObject): K8sObject {
  const copy = structuredClone(obj) as K8sObject;
  const meta = copy.metadata ?? (copy.metadata = { name: "" });
  delete meta.managedFields;
  if (meta.annotations && typeof meta.annotations === "object") {
    delete meta.annotations[LAST_APPLIED];
  }
  if (copy.kind === "Secret") {
    const data = copy.data && typeof copy.data === "object" ? copy.data as Record<string, unknown> : null;
    if (data) {
      const kept: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(data)) if (KEPT_SECRET_KEYS.has(k)) kept[k] = v;
      copy.data = kept;
    } else if (copy.data !== undefined) {
      delete copy.data;
    }
    delete copy.stringData;
  }
  redactEnv(copy);
  return copy;
}

/** Replaces literal values of sensitive-looking env vars anywhere in pod specs and templates. */
function redactEnv(v: unknown): void {
  if (Array.isArray(v)) {
    for (const x of v) redactEnv(x);
    return;
  }
  if (v === null || typeof v !== "object") return;
  const o = v as Record<string, unknown>;
  if (Array.isArray(o.env)) {
    for (const e of o.env) {
      if (e && typeof e === "object") {
        const ev = e as { name?: unknown; value?: unknown };
        if (typeof ev.name === "string" && typeof ev.value === "string" && SENSITIVE_NAME.test(ev.name)) {
          ev.value = REDACTED;
        }
      }
    }
  }
  for (const x of Object.values(o)) redactEnv(x);
}

/**
 * Redacts the key material of `wg show … dump` output: the private key of every interface line
 * (5 fields in `wg show all dump`, 4 in `wg show <if> dump`) and any preshared key of a peer line.
 * Returns the redacted text and the secret values it removed (to scrub them anywhere else).
 */
export function redactWgDump(text: string): { text: string; secrets: string[] } {
  const secrets: string[] = [];
  const lines = text.split("\n").map((line) => {
    const eol = line.endsWith("\r") ? "\r" : "";
    const body = eol ? line.slice(0, -1) : line;
    const tabbed = body.includes("\t");
    const f = tabbed ? body.split("\t") : body.trim() === "" ? [] : body.trim().split(/\s+/);
    const redactAt = (i: number): void => {
      const v = f[i];
      if (v !== undefined && v !== "(none)" && v !== "" && v !== REDACTED) {
        secrets.push(v.trim());
        f[i] = REDACTED;
      }
    };
    if (f.length === 5) redactAt(1); // all-dump interface line: name, private key, …
    else if (f.length === 4) redactAt(0); // single-interface dump: private key, …
    else if (f.length === 9) redactAt(2); // all-dump peer line: name, public key, preshared key, …
    else if (f.length === 8) redactAt(1); // single-interface peer line: public key, preshared key, …
    else return line;
    return f.join(tabbed ? "\t" : " ") + eol;
  });
  return { text: lines.join("\n"), secrets: secrets.filter((s) => s.length >= 8) };
}

const PEM_PRIVATE = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9\-._~+/]+=*/gi;
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
const KEY_VALUE =
  /(["']?[A-Za-z0-9_.-]*(?:token|password|passwd|secret|private[-_ ]?key|client-key-data|client-key|api[-_]?key|preshared[-_ ]?key|credentials?)["']?\s*(?:[:=]|\s)\s*)(["']?)([^\s"',;}]+)\2/gi;
const B64_KEY = /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{42,43}=(?![A-Za-z0-9+/=])/g;

/**
 * Scrubs free text (logs, command output) conservatively: PEM private key blocks, `Bearer`/`Basic`
 * credentials, JWTs, `token=…` / `password: …` / `privateKey …` style pairs, and 32-byte base64 keys
 * on a line that mentions "private" or "preshared". Then removes every value of `known` (secrets
 * seen elsewhere in the capture, e.g. the WireGuard private keys or kubeconfig credentials).
 */
export function scrubText(text: string, known: readonly string[] = []): string {
  let out = text.replace(PEM_PRIVATE, `-----BEGIN PRIVATE KEY-----${REDACTED}-----END PRIVATE KEY-----`);
  out = out.replace(BEARER, (_m, scheme: string) => `${scheme} ${REDACTED}`);
  out = out.replace(JWT, REDACTED);
  out = out.split("\n").map((line) => {
    let l = line.replace(KEY_VALUE, (m, head: string, q: string, value: string) => {
      if (value === REDACTED || /^\(?none\)?$|^null$|^true$|^false$|^""$/i.test(value)) return m;
      return `${head}${q}${REDACTED}${q}`;
    });
    if (/private|preshared/i.test(l)) l = l.replace(B64_KEY, REDACTED);
    return l;
  }).join("\n");
  return scrubKnown(out, known);
}

/** Replaces every occurrence of each known secret value (at least 8 characters) by {@link REDACTED}. */
export function scrubKnown(text: string, known: readonly string[]): string {
  let out = text;
  for (const s of known) {
    if (s.length < 8) continue;
    if (out.includes(s)) out = out.split(s).join(REDACTED);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// IP pseudonymisation

/**
 * Address ranges whose *class* is kept: an address inside one maps inside the same range (and
 * nothing outside maps into it), so judgements such as "private vs public" survive. Loopback
 * (127.0.0.0/8), 0.0.0.0 and 255.255.255.255 map to themselves.
 */
const KEPT_CLASSES: readonly [number, number][] = [
  [ip4("10.0.0.0"), 8],
  [ip4("172.16.0.0"), 12],
  [ip4("192.168.0.0"), 16],
  [ip4("100.64.0.0"), 10],
  [ip4("169.254.0.0"), 16],
  [ip4("127.0.0.0"), 8],
  [ip4("224.0.0.0"), 4],
  [ip4("0.0.0.0"), 32],
  [ip4("255.255.255.255"), 32],
];

function ip4(s: string): number {
  return s.split(".").reduce((n, o) => n * 256 + Number(o), 0);
}

function fmt4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
}

/** Maps IPv4 addresses (and CIDRs) to pseudonyms; see {@link createIpPseudonymizer}. */
export interface IpPseudonymizer {
  /** Maps one dotted-quad address (as a 32-bit unsigned number). */
  mapAddress(addr: number): number;
  /** Maps every IPv4 address and `a.b.c.d/n` CIDR inside a string; everything else is left alone. */
  mapString(s: string): string;
  /** Maps every string (and object key) inside a JSON-like value; returns a new value. */
  mapDeep<T>(v: T): T;
}

const IPV4_IN_TEXT =
  /(?<![0-9A-Za-z.])((?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})(?:\/(3[0-2]|[12]?\d))?(?![0-9]|\.\d)/g;

/**
 * A keyed, prefix-preserving IPv4 pseudonymiser in the spirit of Crypto-PAn: bit i of the output is
 * bit i of the input XOR a pseudo-random bit computed with HMAC-SHA256(key, i ‖ the first i input
 * bits). Hence the mapping is a bijection, the same input always gives the same output (for one
 * key), and two addresses sharing an n-bit prefix share an n-bit prefix after mapping — a CIDR
 * `a.b.c.d/n` maps to `mapped(a.b.c.d)/n` (host bits zeroed when they were zero) and containment is
 * kept. Along the paths of the {@link KEPT_CLASSES} prefixes no bit is flipped, so loopback,
 * 0.0.0.0 and the broadcast address stay unchanged and RFC 1918 / CGNAT / link-local / multicast
 * addresses stay in their range. Inside 127.0.0.0/8 nothing changes at all.
 *
 * What it trades away: exact addresses (public IPs, well-known ones such as cloud metadata), host
 * bits (a remapped address no longer equals remapped-prefix + original host bits, so arithmetic
 * between a CIDR and an address can disagree), and the identity of a network address written as a
 * plain IP versus as a CIDR. IPv6 addresses are left unchanged.
 */
export function createIpPseudonymizer(key: Uint8Array): IpPseudonymizer {
  const bitCache = new Map<string, number>();
  const addrCache = new Map<number, number>();
  const keyBuf = key.slice();

  const flip = (i: number, prefix: number): number => {
    // No flip along the path of a kept class (the node lies on the prefix of a kept range).
    for (const [net, len] of KEPT_CLASSES) {
      if (i < len && (i === 0 || (prefix >>> (32 - i)) === (net >>> (32 - i)))) return 0;
    }
    const id = `${i}/${i === 0 ? 0 : prefix >>> (32 - i)}`;
    let b = bitCache.get(id);
    if (b === undefined) {
      b = createHmac("sha256", keyBuf).update(id).digest()[0] & 1;
      bitCache.set(id, b);
    }
    return b;
  };

  const mapAddress = (addr: number): number => {
    const a = addr >>> 0;
    if ((a >>> 24) === 127) return a;
    const hit = addrCache.get(a);
    if (hit !== undefined) return hit;
    let out = 0;
    for (let i = 0; i < 32; i++) {
      const bit = (a >>> (31 - i)) & 1;
      out = (out << 1) | (bit ^ flip(i, a));
    }
    out >>>= 0;
    addrCache.set(a, out);
    return out;
  };

  const mapString = (s: string): string => {
    if (!/\d\.\d/.test(s)) return s;
    return s.replace(IPV4_IN_TEXT, (_m, addr: string, bits: string | undefined) => {
      const a = ip4(addr);
      let m = mapAddress(a);
      if (bits === undefined) return fmt4(m);
      const n = Number(bits);
      const hostMask = n === 0 ? 0xffffffff : n === 32 ? 0 : (0xffffffff >>> n);
      if ((a & hostMask) >>> 0 === 0) m = (m & ~hostMask) >>> 0;
      return `${fmt4(m)}/${n}`;
    });
  };

  const mapDeep = <T>(v: T): T => {
    if (typeof v === "string") return mapString(v) as T;
    if (Array.isArray(v)) return v.map((x) => mapDeep(x)) as T;
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[mapString(k)] = mapDeep(x);
      return out as T;
    }
    return v;
  };

  return { mapAddress, mapString, mapDeep };
}
