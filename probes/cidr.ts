/**
 * IPv4 address and CIDR arithmetic for Liqo's CIDR checks and address remapping.
 *
 * Everything here is pure and never throws on bad input: parsers return null. IPv6 is not
 * supported (Liqo's networking is IPv4-only); {@link isIPv6} and {@link ipv6NotSupported} let
 * callers say so instead of reporting a confusing "invalid address".
 */

/** A parsed IPv4 CIDR, normalised to its network address. */
export interface Cidr {
  /** Network address as an unsigned 32-bit integer (host bits cleared). */
  base: number;
  /** Prefix length, 0..32. */
  prefix: number;
  /** Normalised text form, e.g. "10.0.0.0/16". */
  text: string;
}

const OCTET = /^(0|[1-9][0-9]{0,2})$/;
const PREFIX = /^(0|[1-9][0-9]?)$/;

/**
 * Parses a dotted-quad IPv4 address into an unsigned 32-bit integer. Surrounding whitespace is
 * ignored; leading zeros ("010.0.0.1", ambiguous octal), signs, missing or extra octets, and
 * octets above 255 are rejected (null).
 */
export function parseIPv4(s: string): number | null {
  if (typeof s !== "string") return null;
  const parts = s.trim().split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!OCTET.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value >>> 0;
}

/** Formats an unsigned 32-bit integer as a dotted-quad IPv4 address. */
export function formatIPv4(n: number): string {
  const v = n >>> 0;
  return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
}

/** Netmask for a prefix length, as an unsigned 32-bit integer (prefix 0 → 0). */
export function prefixMask(prefix: number): number {
  if (prefix <= 0) return 0;
  if (prefix >= 32) return 0xffffffff;
  return (0xffffffff << (32 - prefix)) >>> 0;
}

/**
 * Parses "a.b.c.d/p". Host bits are allowed but cleared ("10.1.2.3/16" → "10.0.0.0/16").
 * Returns null for anything else (bare addresses, prefix > 32, bad octets, IPv6, empty strings).
 */
export function parseCidr(s: string): Cidr | null {
  if (typeof s !== "string") return null;
  const trimmed = s.trim();
  const slash = trimmed.indexOf("/");
  if (slash < 0 || slash !== trimmed.lastIndexOf("/")) return null;
  const ip = parseIPv4(trimmed.slice(0, slash));
  const prefixText = trimmed.slice(slash + 1);
  if (ip === null || !PREFIX.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (prefix > 32) return null;
  const base = (ip & prefixMask(prefix)) >>> 0;
  return { base, prefix, text: `${formatIPv4(base)}/${prefix}` };
}

function asCidr(c: Cidr | string): Cidr | null {
  return typeof c === "string" ? parseCidr(c) : c;
}

function toIp(ip: number | string): number | null {
  if (typeof ip === "number") return Number.isInteger(ip) && ip >= 0 && ip <= 0xffffffff ? ip : null;
  return parseIPv4(ip);
}

/** Number of addresses in a CIDR (2^(32-prefix)). */
export function cidrSize(cidr: Cidr): number {
  return 2 ** (32 - cidr.prefix);
}

/** True when `ip` lies inside `cidr`. Unparsable inputs give false. */
export function contains(cidr: Cidr | string, ip: number | string): boolean {
  const c = asCidr(cidr);
  const a = toIp(ip);
  if (c === null || a === null) return false;
  return ((a & prefixMask(c.prefix)) >>> 0) === c.base;
}

/** True when two CIDRs share at least one address. Unparsable inputs give false. */
export function overlaps(a: Cidr | string, b: Cidr | string): boolean {
  const x = asCidr(a);
  const y = asCidr(b);
  if (x === null || y === null) return false;
  const mask = prefixMask(Math.min(x.prefix, y.prefix));
  return ((x.base & mask) >>> 0) === ((y.base & mask) >>> 0);
}

/**
 * Liqo's address translation (RemapMask): keeps the host bits of `ip` and substitutes the network
 * bits of `toCidr`. Returns null when `ip` is not inside `fromCidr`, when the two prefix lengths
 * differ (Liqo only remaps between equally sized CIDRs, so a mismatch means the inputs are not a
 * spec/status pair), or when any input does not parse. Callers that want Liqo's "addresses outside
 * the CIDR are left unchanged" behaviour should fall back to the original address on null.
 */
export function remapAddress(
  ip: number | string,
  fromCidr: Cidr | string,
  toCidr: Cidr | string,
): string | null {
  const a = toIp(ip);
  const from = asCidr(fromCidr);
  const to = asCidr(toCidr);
  if (a === null || from === null || to === null) return null;
  if (from.prefix !== to.prefix) return null;
  if (!contains(from, a)) return null;
  const mask = prefixMask(to.prefix);
  return formatIPv4(((to.base & mask) | (a & ~mask)) >>> 0);
}

/**
 * First usable host of a CIDR: network + 1 for prefixes up to /30, the network address itself for
 * /31 (RFC 3021 point-to-point) and /32.
 */
export function firstHost(cidr: Cidr | string): string | null {
  const c = asCidr(cidr);
  if (c === null) return null;
  return formatIPv4(c.prefix >= 31 ? c.base : c.base + 1);
}

const PRIVATE_RANGES = [
  "10.0.0.0/8",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
].map((s) => parseCidr(s) as Cidr);

/**
 * True for addresses not routable on the public Internet: RFC 1918, CGNAT 100.64.0.0/10,
 * loopback 127.0.0.0/8 and link-local 169.254.0.0/16. Unparsable input gives false.
 */
export function isPrivate(ip: number | string): boolean {
  const a = toIp(ip);
  if (a === null) return false;
  return PRIVATE_RANGES.some((r) => contains(r, a));
}

/**
 * True when the string looks like an IPv6 address or CIDR (contains ':' and only hex digits,
 * colons, dots, one optional "/prefix" and an optional "%zone"). A cheap shape test, not a
 * validator: it exists so callers can say "IPv6 not supported" rather than "garbage".
 */
export function isIPv6(s: string): boolean {
  if (typeof s !== "string") return false;
  let t = s.trim();
  if (t.startsWith("[") && t.includes("]")) t = t.slice(1, t.indexOf("]"));
  const pct = t.indexOf("%");
  if (pct >= 0) t = t.slice(0, pct);
  return t.includes(":") && /^[0-9a-fA-F:.]+(\/[0-9]{1,3})?$/.test(t) && (t.match(/::/g) ?? []).length <= 1;
}

/** A message for IPv6 input ("IPv6 not supported: <s>"), or null when the input is not IPv6. */
export function ipv6NotSupported(s: string): string | null {
  return isIPv6(s) ? `IPv6 not supported: ${s.trim()}` : null;
}
