/**
 * UDP reachability probe of a WireGuard endpoint from the tool's host (GW-05).
 *
 * Default mode uses Deno's datagram API: it can see a reply but not an ICMP refusal, so "silence"
 * is the common, inconclusive result (WireGuard ignores unauthenticated packets). Precise mode
 * (`precise: true`, needs --allow-ffi) uses a connected socket through libc to detect refusals;
 * when FFI is unavailable it falls back to the default mode and says so in the detail.
 */
import type { UdpProbeResult } from "./hub.ts";
import { probeUdpPrecise } from "./udp_ffi.ts";
import { within } from "../time.ts";

/** Options of {@link probeUdp}. */
export interface UdpProbeOptions {
  timeoutMs: number;
  /** Use the FFI probe that can detect ICMP port-unreachable. */
  precise?: boolean;
  signal?: AbortSignal;
}

/** Detail used when nothing answers in default mode. */
export const SILENCE_DETAIL =
  "no reply (normal for WireGuard, which ignores unauthenticated packets; a closed port also looks like this without --udp-precise)";

/** Marks a detail whose precise (--udp-precise) probe could not run and fell back to the default mode. */
export const PRECISE_UDP_UNAVAILABLE = "precise mode unavailable";

/**
 * Payload: the size of a WireGuard handshake initiation (148 bytes) with message type 1 and
 * zeroed fields. A WireGuard peer drops it silently (its MAC1 is invalid); it never completes or
 * disturbs a handshake.
 */
export function probePayload(): Uint8Array {
  const p = new Uint8Array(148);
  p[0] = 1;
  return p;
}

function isLoopback(host: string): boolean {
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === "localhost" || host === "::1";
}

function isPermissionError(e: unknown): boolean {
  return e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied ||
    (e instanceof Error && /Requires net access/i.test(e.message));
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function netState(host: string, port: number): Deno.PermissionState {
  try {
    return Deno.permissions.querySync({ name: "net", host: `${host}:${port}` }).state;
  } catch {
    return "denied";
  }
}

/**
 * Sends a small datagram to host:port and waits up to `timeoutMs` for an answer from that address.
 * Outcomes: "reply"; "silence" (see {@link SILENCE_DETAIL}); "refused" (only in precise mode, or
 * where the OS reports it anyway); "unavailable" when net permission is missing (nothing is sent),
 * the probe is aborted, or the socket fails. Never throws.
 */
export async function probeUdp(host: string, port: number, opts: UdpProbeOptions): Promise<UdpProbeResult> {
  const target = `${host}:${port}`;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    return { outcome: "unavailable", detail: `invalid port ${port}` };
  }
  if (netState(host, port) !== "granted") {
    return { outcome: "unavailable", detail: `no net permission for ${target} (--allow-net)` };
  }
  let fallbackNote = "";
  if (opts.precise) {
    const precise = await probeUdpPrecise(host, port, {
      timeoutMs: opts.timeoutMs,
      signal: opts.signal,
      payload: probePayload(),
    });
    if (precise.outcome !== "unavailable" || precise.detail === "aborted") return precise;
    fallbackNote = ` [${PRECISE_UDP_UNAVAILABLE}: ${precise.detail}]`;
  }
  if (opts.signal?.aborted) return { outcome: "unavailable", detail: "aborted" };

  const bindHost = isLoopback(host)
    ? (host === "::1" ? "::1" : "127.0.0.1")
    : host.includes(":")
    ? "::"
    : "0.0.0.0";
  let conn: Deno.DatagramConn;
  try {
    conn = Deno.listenDatagram({ transport: "udp", hostname: bindHost, port: 0 });
  } catch (e) {
    if (isPermissionError(e)) {
      return {
        outcome: "unavailable",
        detail: `no net permission to open a UDP socket on ${bindHost} (--allow-net)${fallbackNote}`,
      };
    }
    return { outcome: "unavailable", detail: `cannot open a UDP socket: ${message(e)}${fallbackNote}` };
  }

  const onAbort = (): void => {
    try {
      conn.close();
    } catch { /* already closed */ }
  };
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    await conn.send(probePayload(), { transport: "udp", hostname: host, port });
    const deadline = Date.now() + Math.max(0, opts.timeoutMs);
    while (true) {
      const got = await within(conn.receive(), deadline - Date.now());
      if (!got.done) return { outcome: "silence", detail: `${SILENCE_DETAIL}${fallbackNote}` };
      const [data, addr] = got.value;
      // An unconnected socket accepts datagrams from anyone: only count the probed endpoint
      // (or any sender when the host is a name we did not resolve ourselves).
      const from = addr as Deno.NetAddr;
      const literal = /^[0-9.]+$/.test(host) || host.includes(":");
      if (!literal || (from.hostname === host && from.port === port)) {
        return { outcome: "reply", detail: `${data.length}-byte reply from ${target}${fallbackNote}` };
      }
    }
  } catch (e) {
    if (opts.signal?.aborted) return { outcome: "unavailable", detail: "aborted" };
    if (isPermissionError(e)) {
      return { outcome: "unavailable", detail: `no net permission for ${target} (--allow-net)` };
    }
    if (e instanceof Deno.errors.ConnectionRefused || e instanceof Deno.errors.ConnectionReset) {
      return { outcome: "refused", detail: `ICMP port unreachable from ${target}` };
    }
    return { outcome: "unavailable", detail: `UDP probe of ${target} failed: ${message(e)}${fallbackNote}` };
  } finally {
    opts.signal?.removeEventListener("abort", onAbort);
    try {
      conn.close();
    } catch { /* already closed */ }
  }
}
