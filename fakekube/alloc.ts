/** Small helpers of the fake cluster's controllers: API timestamps and address allocation. */
import { formatIPv4, parseCidr } from "./ipv4.ts";

/** RFC 3339 time without fractional seconds, as the API server writes timestamps. */
export function nowStamp(now = new Date()): string {
  return now.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The first free address of `cidr` after the gateway (network + 1), or null when full. */
export function nextFree(cidr: string, used: ReadonlySet<string>): string | null {
  const c = parseCidr(cidr);
  if (!c) return null;
  const size = 2 ** (32 - c.prefix);
  for (let i = 2; i < size - 1; i++) {
    const ip = formatIPv4(c.base + i);
    if (!used.has(ip)) return ip;
  }
  return null;
}
