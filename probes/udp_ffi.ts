/**
 * Precise UDP probe through Deno FFI (libc). A *connected* UDP socket gets ECONNREFUSED once an
 * ICMP port-unreachable comes back, which Deno's datagram API does not expose; this tells a closed
 * port ("refused") apart from a silent WireGuard endpoint ("silence").
 *
 * FFI bypasses Deno's --allow-net, so the probe first requires that net access to host:port is
 * already granted, and refuses otherwise without opening a socket. Needs --allow-ffi. IPv4 only.
 */
import type { UdpProbeResult } from "./hub.ts";
import { formatIPv4, parseIPv4 } from "./cidr.ts";

/** Options of {@link probeUdpPrecise}. */
export interface PreciseUdpOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Datagram to send (default: 4 bytes). */
  payload?: Uint8Array;
}

interface Platform {
  lib: string;
  solSocket: number;
  soError: number;
  msgDontwait: number;
  econnrefused: number;
  bsdSockaddr: boolean;
}

function platform(): Platform | null {
  switch (Deno.build.os) {
    case "linux":
      return {
        lib: "libc.so.6",
        solSocket: 1,
        soError: 4,
        msgDontwait: 0x40,
        econnrefused: 111,
        bsdSockaddr: false,
      };
    case "darwin":
      return {
        lib: "libSystem.B.dylib",
        solSocket: 0xffff,
        soError: 0x1007,
        msgDontwait: 0x80,
        econnrefused: 61,
        bsdSockaddr: true,
      };
    default:
      return null;
  }
}

const SYMBOLS = {
  socket: { parameters: ["i32", "i32", "i32"], result: "i32" },
  connect: { parameters: ["i32", "buffer", "u32"], result: "i32" },
  send: { parameters: ["i32", "buffer", "usize", "i32"], result: "isize" },
  recv: { parameters: ["i32", "buffer", "usize", "i32"], result: "isize" },
  poll: { parameters: ["buffer", "u64", "i32"], result: "i32", nonblocking: true },
  getsockopt: { parameters: ["i32", "i32", "i32", "buffer", "buffer"], result: "i32" },
  close: { parameters: ["i32"], result: "i32" },
} as const;

const AF_INET = 2;
const SOCK_DGRAM = 2;
const POLLIN = 0x1;
const POLLERR = 0x8;
/** Poll in short slices so an abort signal is honoured promptly. */
const SLICE_MS = 100;

function sockaddrIn(ip: number, port: number, bsd: boolean): Uint8Array {
  const buf = new Uint8Array(16);
  const view = new DataView(buf.buffer);
  if (bsd) {
    buf[0] = 16;
    buf[1] = AF_INET;
  } else {
    view.setUint16(0, AF_INET, true);
  }
  view.setUint16(2, port, false);
  view.setUint32(4, ip >>> 0, false);
  return buf;
}

function isNotCapable(e: unknown): boolean {
  return (e instanceof Deno.errors.NotCapable) ||
    (e instanceof Error && /Requires (ffi|net) access|NotCapable/i.test(e.message));
}

function netGranted(host: string, port: number): boolean {
  try {
    return Deno.permissions.querySync({ name: "net", host: `${host}:${port}` }).state === "granted";
  } catch {
    return false;
  }
}

/**
 * Sends one datagram on a connected UDP socket and waits `timeoutMs` for a reply or an ICMP
 * refusal. Outcomes: "reply", "refused" (port closed), "silence", or "unavailable" (no net
 * permission for host:port, no --allow-ffi, unsupported OS, host not an IPv4 literal or resolvable).
 * Never throws.
 */
export async function probeUdpPrecise(
  host: string,
  port: number,
  opts: PreciseUdpOptions,
): Promise<UdpProbeResult> {
  const target = `${host}:${port}`;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    return { outcome: "unavailable", detail: `invalid port ${port}` };
  }
  if (!netGranted(host, port)) {
    return { outcome: "unavailable", detail: `no net permission for ${target} (--allow-net)` };
  }
  const plat = platform();
  if (plat === null) {
    return { outcome: "unavailable", detail: `precise UDP not supported on ${Deno.build.os}` };
  }

  let ip = parseIPv4(host);
  if (ip === null) {
    try {
      const addrs = await Deno.resolveDns(host, "A");
      ip = addrs.length > 0 ? parseIPv4(addrs[0]) : null;
    } catch (e) {
      return {
        outcome: "unavailable",
        detail: `cannot resolve ${host}: ${e instanceof Error ? e.message : e}`,
      };
    }
    if (ip === null) return { outcome: "unavailable", detail: `no IPv4 address for ${host}` };
  }
  const addrText = formatIPv4(ip);

  let lib: Deno.DynamicLibrary<typeof SYMBOLS>;
  try {
    lib = Deno.dlopen(plat.lib, SYMBOLS);
  } catch (e) {
    if (isNotCapable(e)) return { outcome: "unavailable", detail: "precise UDP needs --allow-ffi" };
    return {
      outcome: "unavailable",
      detail: `cannot load ${plat.lib}: ${e instanceof Error ? e.message : e}`,
    };
  }
  const s = lib.symbols;
  let fd = -1;
  const soError = (): number => {
    const val = new Uint8Array(4);
    const len = new Uint8Array(4);
    new DataView(len.buffer).setUint32(0, 4, true);
    if (s.getsockopt(fd, plat.solSocket, plat.soError, val, len) !== 0) return -1;
    return new DataView(val.buffer).getInt32(0, true);
  };
  try {
    fd = s.socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) return { outcome: "unavailable", detail: "socket() failed" };
    const sa = sockaddrIn(ip, port, plat.bsdSockaddr);
    if (s.connect(fd, sa, sa.length) !== 0) {
      return { outcome: "unavailable", detail: `connect() to ${addrText}:${port} failed` };
    }
    const payload = opts.payload ?? new Uint8Array([0x66, 0x66, 0x00, 0x01]);
    if (Number(s.send(fd, payload, BigInt(payload.length), 0)) < 0) {
      const err = soError();
      if (err === plat.econnrefused) {
        return { outcome: "refused", detail: `ICMP port unreachable from ${target}` };
      }
      return { outcome: "unavailable", detail: `send() to ${target} failed (socket error ${err})` };
    }
    const deadline = Date.now() + Math.max(0, opts.timeoutMs);
    const pfd = new Uint8Array(8);
    const pview = new DataView(pfd.buffer);
    while (true) {
      if (opts.signal?.aborted) return { outcome: "unavailable", detail: "aborted" };
      const left = deadline - Date.now();
      if (left <= 0) break;
      pview.setInt32(0, fd, true);
      pview.setInt16(4, POLLIN, true);
      pview.setInt16(6, 0, true);
      const n = await s.poll(pfd, 1n, Math.min(SLICE_MS, left));
      if (n <= 0) continue;
      const revents = pview.getInt16(6, true);
      if (revents & POLLERR) {
        const err = soError();
        if (err === plat.econnrefused) {
          return { outcome: "refused", detail: `ICMP port unreachable: nothing listens on ${target} (UDP)` };
        }
      }
      if (revents & (POLLIN | POLLERR)) {
        const buf = new Uint8Array(2048);
        const got = Number(s.recv(fd, buf, BigInt(buf.length), plat.msgDontwait));
        if (got >= 0) return { outcome: "reply", detail: `${got}-byte reply from ${target}` };
        const err = soError();
        if (err === plat.econnrefused) {
          return { outcome: "refused", detail: `ICMP port unreachable: nothing listens on ${target} (UDP)` };
        }
      }
    }
    return {
      outcome: "silence",
      detail: `no reply and no ICMP refusal from ${target} within ${opts.timeoutMs} ms ` +
        "(normal for WireGuard, which ignores unauthenticated packets)",
    };
  } catch (e) {
    return { outcome: "unavailable", detail: `precise UDP failed: ${e instanceof Error ? e.message : e}` };
  } finally {
    if (fd >= 0) s.close(fd);
    lib.close();
  }
}
