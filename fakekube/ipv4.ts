/**
 * The IPv4 arithmetic the fake needs (address allocation, Liqo's CIDR remapping, validating probe
 * targets), written apart from the product's probes/cidr.ts so the fake stays an independent oracle.
 */

/** An IPv4 network: its base address (host bits clear) as an unsigned 32-bit integer, its prefix. */
export interface Ipv4Net {
  base: number;
  prefix: number;
}

const DOTTED = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** A dotted-quad address as an unsigned 32-bit integer; null unless exactly four octets 0–255. */
export function parseIPv4(s: string): number | null {
  const m = typeof s === "string" ? DOTTED.exec(s.trim()) : null;
  if (!m) return null;
  const octets = m.slice(1).map(Number);
  if (octets.some((o) => o > 255)) return null;
  return ((octets[0] << 24) | (octets[1] << 16) | (octets[2] << 8) | octets[3]) >>> 0;
}

/** An unsigned 32-bit integer as a dotted quad. */
export function formatIPv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join(".");
}

function mask(prefix: number): number {
  return prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0;
}

/** Parses `a.b.c.d/p` (host bits cleared); null for anything else. */
export function parseCidr(s: string): Ipv4Net | null {
  const m = typeof s === "string" ? /^([^/]+)\/(\d{1,2})$/.exec(s.trim()) : null;
  if (!m) return null;
  const ip = parseIPv4(m[1]);
  const prefix = Number(m[2]);
  if (ip === null || prefix > 32) return null;
  return { base: (ip & mask(prefix)) >>> 0, prefix };
}

/**
 * Maps `ip` from network `from` into network `to` keeping its host bits (how Liqo's remapped
 * CIDRs translate an address); null unless both parse, have the same prefix and `from` holds `ip`.
 */
export function remapAddress(ip: string, from: string, to: string): string | null {
  const a = parseIPv4(ip);
  const f = parseCidr(from);
  const t = parseCidr(to);
  if (a === null || f === null || t === null || f.prefix !== t.prefix) return null;
  const m = mask(f.prefix);
  if (((a & m) >>> 0) !== f.base) return null;
  return formatIPv4((t.base | (a & ~m)) >>> 0);
}
