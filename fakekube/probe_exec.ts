/**
 * The fake exec router for the active probes' commands (active/commands.ts), answering like
 * the real tools from the shared {@link Network}: agnhost `connect`, curl to netexec `/dial`, the
 * PROBE-UDP series and PROBE-SVC sweep scripts, `getent hosts`, iputils `ping -M do` and
 * `timeout N tcpdump …` (which waits, in real time, for packets other execs send meanwhile).
 * Anything else returns null and falls through to exec.ts (`wg`, `ip`, `cat`).
 */
import type { K8sObject } from "./object.ts";
import type { ExecResult } from "./exec.ts";
import { type NetworkHost, type NetworkModel, NetworkModelSchema } from "./netmodel.ts";
import { type Endpoint, Network, type SeenPacket } from "./netpath.ts";
import { geneveIface, TUNNEL_IFACE, tunnelAddresses } from "./nettopo.ts";
import {
  MATRIX_ROW_MARKER,
  PREFLIGHT_ECHO_MARKER,
  SERVICE_SWEEP_MARKER,
  UDP_SERIES_MARKER,
} from "./markers.ts";
import { parseIPv4 } from "./ipv4.ts";
import { CHANNEL, encodeFrame, execStatus } from "./websocket.ts";

const ok = (stdout: string, stderr = ""): ExecResult => ({ stdout, stderr, exitCode: 0 });
const res = (stdout: string, stderr: string, exitCode: number): ExecResult => ({ stdout, stderr, exitCode });

/** Sleeps `ms` (resolves early on abort). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((r) => {
    if (ms <= 0 || signal.aborted) return r();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      r();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Go's json.Marshal of netexec's `map[string][]string` (sorted keys, HTML-safe escapes). */
export function goJson(out: { responses?: string[]; errors?: string[] }): string {
  const o: Record<string, string[]> = {};
  if (out.errors && out.errors.length > 0) o.errors = out.errors;
  if (out.responses && out.responses.length > 0) o.responses = out.responses;
  return JSON.stringify(o).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
}

/** curl's `%{time_total}` (seconds, 6 decimals). */
const secs = (s: number): string => s.toFixed(6);

/** What one exec runs in: the network, the pod, its endpoint and the cancel signal. */
interface Ctx {
  net: Network;
  cluster: string;
  pod: K8sObject;
  src: Endpoint | null;
  signal: AbortSignal;
  scale: number;
}

/** A netexec answer to one UDP request (lowercased like netexec), or null for no answer. */
function netexecUdpAnswer(dst: Endpoint, request: string, seen: string, sport: number): string | null {
  const text = request.trim().toLowerCase();
  if (text === "hostname") return dst.pod.metadata.name;
  if (text.startsWith("echo ")) return text.slice(5);
  if (text === "clientip") return `${seen}:${sport}`;
  return null;
}

// ---------------------------------------------------------------- agnhost connect

async function agnhostConnect(ctx: Ctx, args: string[]): Promise<ExecResult> {
  const dest = args.find((a) => !a.startsWith("--"));
  const timeoutArg = args.find((a) => a.startsWith("--timeout="))?.slice("--timeout=".length) ?? "0s";
  const timeoutS = parseDuration(timeoutArg);
  if (!dest || !/:\d+$/.test(dest)) {
    return res("", `UNKNOWN: address ${dest ?? ""}: missing port in address\n`, 1);
  }
  const host = dest.slice(0, dest.lastIndexOf(":"));
  const port = Number(dest.slice(dest.lastIndexOf(":") + 1));
  if (!ctx.src) return res("", `OTHER: dial tcp ${dest}: connect: network is unreachable\n`, 1);
  let addr = host;
  if (parseIPv4(host) === null) {
    const hit = ctx.net.lookup(ctx.src, host);
    if (!hit) return res("", `DNS: lookup ${host} on 10.96.0.10:53: no such host\n`, 1);
    addr = hit.ip;
  }
  const r = tcpConnect(ctx, addr, port);
  if (r === "open") return ok("");
  if (r === "refused") return res("", "REFUSED\n", 1);
  await sleep((timeoutS > 0 ? timeoutS : 127) * 1000 * ctx.scale, ctx.signal);
  return res("", "TIMEOUT\n", 1);
}

function parseDuration(s: string): number {
  const m = s.match(/^(\d+(?:\.\d+)?)(ms|s|m)?$/);
  if (!m) return 0;
  const n = Number(m[1]);
  return m[2] === "ms" ? n / 1000 : m[2] === "m" ? n * 60 : n;
}

/** A TCP handshake from the exec's pod to addr:port. */
function tcpConnect(ctx: Ctx, addr: string, port: number): "open" | "refused" | "timeout" {
  const src = ctx.src!;
  const t = ctx.net.resolve(src, addr);
  let dst: Endpoint;
  if (t.kind === "none") return "timeout";
  if (t.kind === "service") {
    if (t.backends.length === 0) return "refused";
    dst = pick(ctx.net, t.backends, `${src.ip}|${addr}`);
    if (ctx.net.deadBackend(dst)) return "timeout";
  } else dst = t.dst;
  const dialed = t.kind === "service" ? ctx.net.addressFor(src, dst) : addr;
  const listens = ctx.net.listening(dst)?.http === port;
  const ex = ctx.net.exchange(src, dst, dialed, "tcp", port, "SYN", () => listens ? "SYN-ACK" : "RST");
  if (!ex.back?.delivered) return "timeout";
  return listens ? "open" : "refused";
}

const pickCounts = new WeakMap<Network, Map<string, number>>();

/** kube-proxy's random backend choice, deterministic per (network, source, service) sequence. */
function pick<T>(net: Network, xs: readonly T[], key: string): T {
  let picks = pickCounts.get(net);
  if (!picks) pickCounts.set(net, picks = new Map());
  const n = (picks.get(key) ?? 0) + 1;
  picks.set(key, n);
  let h = 2166136261;
  const s = `${key}#${n}`;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return xs[h % xs.length];
}

// ---------------------------------------------------------------- netexec /dial through curl

interface CurlArgs {
  maxTime: number;
  url: string;
}

function parseCurl(args: string[]): CurlArgs | null {
  let maxTime = 0;
  let url = "";
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--max-time" || a === "-m") maxTime = Number(args[++i]);
    else if (a === "-w" || a === "--write-out" || a === "-o") i++;
    else if (!a.startsWith("-")) url = a;
  }
  return url ? { maxTime, url } : null;
}

/** One UDP `/dial` try: the answer, or netexec's error and how long it took (s). */
function dialUdpOnce(
  ctx: Ctx,
  host: string,
  port: number,
  request: string,
  quality: { lostAt?: "underlay"; duplicate?: boolean; extraS?: number } = {},
): { response: string | null; error: string | null; seconds: number } {
  const src = ctx.src!;
  const sport = ctx.net.ephemeralPort();
  const local = `${src.ip}:${sport}`;
  const remote = `${host}:${port}`;
  const timeout = {
    response: null,
    error: `reading from udp connection failed. err:'read udp ${local}->${remote}: i/o timeout'`,
    seconds: 5,
  };
  // Across the WAN (a LoadBalancer, a node's NodePort, a port mapping of the other cluster).
  const wan = ctx.net.wanDial(src, host, port, request, request.length + 28, sport);
  if (wan) {
    if (wan.outcome === "answer") {
      return { response: wan.answer, error: null, seconds: ctx.net.model.udp.rttMs / 1000 };
    }
    if (wan.outcome === "refused") {
      return {
        response: null,
        error:
          `reading from udp connection failed. err:'read udp ${local}->${remote}: read: connection refused'`,
        seconds: 0.001,
      };
    }
    return timeout;
  }
  const t = ctx.net.resolve(src, host);
  if (t.kind === "none") return timeout;
  let dst: Endpoint;
  if (t.kind === "service") {
    if (t.backends.length === 0) {
      return {
        response: null,
        error:
          `reading from udp connection failed. err:'read udp ${local}->${remote}: read: connection refused'`,
        seconds: 0.001,
      };
    }
    dst = pick(ctx.net, t.backends, `${src.ip}|${host}|udp`);
  } else dst = t.dst;
  const listens = ctx.net.listening(dst)?.udp === port;
  const ex = ctx.net.exchange(
    src,
    dst,
    host,
    "udp",
    port,
    request,
    (seen, sp) => listens ? netexecUdpAnswer(dst, request, seen, sp) : "ICMP port unreachable",
    { sport, duplicate: quality.duplicate, lostAt: quality.lostAt },
  );
  if (!ex.back?.delivered || ex.reply === null) return timeout;
  if (!listens) {
    return {
      response: null,
      error:
        `reading from udp connection failed. err:'read udp ${local}->${remote}: read: connection refused'`,
      seconds: 0.001,
    };
  }
  const rtt = (ctx.net.model.udp.rttMs / 1000) + (quality.extraS ?? 0);
  return { response: ex.reply, error: null, seconds: rtt };
}

/** `curl … http://127.0.0.1:8080/dial?...`: netexec's JSON, or curl's own failure. */
async function curlDial(ctx: Ctx, c: CurlArgs): Promise<ExecResult> {
  const own = ctx.src ? ctx.net.listening(ctx.src) : null;
  const u = new URL(c.url);
  if (!own || Number(u.port || 80) !== own.http) {
    return res(
      "",
      `curl: (7) Failed to connect to ${u.hostname} port ${
        u.port || 80
      } after 0 ms: Couldn't connect to server\n`,
      7,
    );
  }
  const q = u.searchParams;
  const tries = Number(q.get("tries") ?? "1") || 1;
  const protocol = (q.get("protocol") ?? "http").toLowerCase();
  const request = q.get("request") ?? "";
  if (protocol !== "udp") return res("", `curl: (22) The requested URL returned error: 400\n`, 22);
  const responses: string[] = [];
  const errors: string[] = [];
  let spent = 0;
  for (let i = 0; i < tries; i++) {
    const r = dialUdpOnce(ctx, q.get("host") ?? "", Number(q.get("port") ?? "0"), request);
    spent += r.seconds;
    if (r.response !== null) responses.push(r.response);
    if (r.error !== null) errors.push(r.error);
  }
  const maxTime = c.maxTime > 0 ? c.maxTime : Infinity;
  if (spent >= maxTime) {
    await sleep(maxTime * 1000 * ctx.scale, ctx.signal);
    return res(
      "",
      `curl: (28) Operation timed out after ${
        Math.round(maxTime * 1000) + 1
      } milliseconds with 0 bytes received\n`,
      28,
    );
  }
  await sleep(spent * 1000 * ctx.scale, ctx.signal);
  return ok(goJson({ responses, errors }));
}

// ---------------------------------------------------------------- scripts

function markerFields(script: string, marker: string): Record<string, string> | null {
  const m = script.match(new RegExp(`^: ${marker}([^;]*);`));
  if (!m) return null;
  const out: Record<string, string> = {};
  for (const kv of m[1].trim().split(/\s+/)) {
    const i = kv.indexOf("=");
    if (i > 0) out[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return out;
}

/**
 * The PROBE-UDP series: one `<seq> <json> <time_total>` line per datagram, seq `first` (default 1)
 * onwards (see commands.ts); each lost datagram waits curl's `--max-time`, like the shell loop.
 */
async function udpSeries(ctx: Ctx, f: Record<string, string>, script: string): Promise<ExecResult> {
  const count = Number(f.count ?? "0");
  const first = Number(f.first ?? "1");
  const host = f.host ?? "";
  const nonce = f.nonce ?? "";
  const maxTime = Number(script.match(/--max-time (\d+(?:\.\d+)?)/)?.[1] ?? "2");
  const q = ctx.net.model.udp;
  let stdout = "";
  let stderr = "";
  for (let i = first; i < first + count; i++) {
    if (ctx.signal.aborted) break;
    const own = ctx.src ? ctx.net.listening(ctx.src) : null;
    if (!own) {
      stdout += `${i}  0.000000\n -1\n`;
      stderr += `curl: (7) Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect to server\n`;
      continue;
    }
    const late = q.lateEvery !== undefined && i % q.lateEvery === 0 ? q.lateMs / 1000 : 0;
    const r = dialUdpOnce(ctx, host, 8081, `echo ff-${nonce}-${i}`, {
      lostAt: q.lossEvery !== undefined && i % q.lossEvery === 0 ? "underlay" : undefined,
      duplicate: q.duplicateEvery !== undefined && i % q.duplicateEvery === 0,
      extraS: late,
    });
    // Loopback HTTP to the pod's own netexec, plus the UDP round trip.
    const total = 0.0006 + ((i * 37) % 11) / 100000 + r.seconds;
    if (total >= maxTime) {
      await sleep(maxTime * 1000 * ctx.scale, ctx.signal);
      stdout += `${i}  ${secs(maxTime + 0.001)}\n -1\n`;
      stderr += `curl: (28) Operation timed out after ${
        Math.round(maxTime * 1000) + 1
      } milliseconds with 0 bytes received\n`;
      continue;
    }
    await sleep(total * 1000 * ctx.scale, ctx.signal);
    stdout += `${i} ${
      goJson({ responses: r.response !== null ? [r.response] : [], errors: r.error ? [r.error] : [] })
    } ${secs(total)}\n`;
  }
  return ok(stdout, stderr);
}

/**
 * The PROBE-MATRIX row script: every cell's TCP connect and UDP `/dial hostname` at once (each in
 * its own subshell, like the shell's `&`), one line per try in completion order — `tcp <k> <exit>
 * <first output line>`, `udp <k> <exit> <curl output on one line>` (see commands.ts matrixRow).
 */
async function matrixRowScript(ctx: Ctx, f: Record<string, string>): Promise<ExecResult> {
  const tcpS = Number(f.tcp ?? "3");
  const udpS = Number(f.udp ?? "5");
  const cells = (f.cells ?? "").split(",").filter((c) => c !== "").map((c) => {
    const [k, ip, protos] = c.split(":");
    return { k, ip, protos: protos ?? "" };
  });
  const lines: string[] = [];
  const oneLine = (s: string) => s.replace(/\n+$/, "").replaceAll("\n", " ");
  const first = (s: string) => s.replace(/\n+$/, "").split("\n")[0] ?? "";
  await Promise.all(cells.flatMap((c) => [
    ...(c.protos.includes("t")
      ? [
        agnhostConnect(ctx, [`${c.ip}:8080`, `--timeout=${tcpS}s`]).then((r) => {
          lines.push(`tcp ${c.k} ${r.exitCode} ${first(r.stdout + r.stderr)}`);
        }),
      ]
      : []),
    ...(c.protos.includes("u")
      ? [
        curlDial(ctx, {
          maxTime: udpS,
          url: `http://127.0.0.1:8080/dial?request=hostname&protocol=udp&host=${c.ip}&port=8081&tries=1`,
        }).then((r) => {
          lines.push(`udp ${c.k} ${r.exitCode} ${oneLine(r.stdout + r.stderr)}`);
        }),
      ]
      : []),
  ]));
  return ok(lines.map((l) => `${l}\n`).join(""));
}

/** The PROBE-SVC sweep: one answering pod name (or `ERR <curl exit>`) per request. */
async function serviceSweep(ctx: Ctx, f: Record<string, string>): Promise<ExecResult> {
  const count = Number(f.count ?? "0");
  const host = f.host ?? "";
  let stdout = "";
  let stderr = "";
  for (let i = 1; i <= count; i++) {
    if (ctx.signal.aborted) break;
    const r = await httpHostname(ctx, host, 8080, 2);
    if (r.ok) stdout += `${r.body}\n`;
    else {
      stdout += `ERR ${r.code}\n`;
      stderr += r.message;
    }
  }
  return ok(stdout, stderr);
}

/** `curl -sS --max-time T http://host:port/hostname`. */
async function httpHostname(
  ctx: Ctx,
  host: string,
  port: number,
  maxTime: number,
): Promise<{ ok: true; body: string } | { ok: false; code: number; message: string }> {
  const src = ctx.src;
  if (!src) return { ok: false, code: 7, message: `curl: (7) Couldn't connect to server\n` };
  let addr = host;
  if (parseIPv4(host) === null) {
    const hit = ctx.net.lookup(src, host);
    if (!hit) return { ok: false, code: 6, message: `curl: (6) Could not resolve host: ${host}\n` };
    addr = hit.ip;
  }
  const timedOut = async () => {
    await sleep(maxTime * 1000 * ctx.scale, ctx.signal);
    return {
      ok: false as const,
      code: 28,
      message: `curl: (28) Connection timed out after ${Math.round(maxTime * 1000) + 1} milliseconds\n`,
    };
  };
  const refused = {
    ok: false as const,
    code: 7,
    message: `curl: (7) Failed to connect to ${host} port ${port} after 1 ms: Couldn't connect to server\n`,
  };
  const t = ctx.net.resolve(src, addr);
  if (t.kind === "none") return await timedOut();
  let dst: Endpoint;
  if (t.kind === "service") {
    if (t.backends.length === 0) return refused;
    dst = pick(ctx.net, t.backends, `${src.ip}|${addr}|http`);
    if (ctx.net.deadBackend(dst)) return await timedOut();
  } else dst = t.dst;
  const listens = ctx.net.listening(dst)?.http === port;
  const dialed = t.kind === "service" ? ctx.net.addressFor(src, dst) : addr;
  const ex = ctx.net.exchange(src, dst, dialed, "tcp", port, "GET /hostname", () => listens ? "200" : "RST");
  if (!ex.back?.delivered) return await timedOut();
  if (!listens) return refused;
  return { ok: true, body: dst.pod.metadata.name };
}

// ---------------------------------------------------------------- getent

function getent(ctx: Ctx, args: string[]): ExecResult {
  if (args[0] !== "hosts" || !args[1]) {
    return res("", "Usage: getent [OPTION...] database [key ...]\n", 1);
  }
  const name = args[1];
  if (parseIPv4(name) !== null) return ok(`${name.padEnd(15)} ${name}\n`);
  const hit = ctx.src ? ctx.net.lookup(ctx.src, name) : null;
  if (!hit) return res("", "", 2);
  return ok(`${hit.ip.padEnd(15)} ${hit.fqdn}\n`);
}

// ---------------------------------------------------------------- ping

function pingOutput(
  addr: string,
  payload: number,
  outcome: { kind: "ok"; ms: number } | { kind: "local"; mtu: number } | {
    kind: "frag";
    from: string;
    mtu: number;
  } | {
    kind: "lost";
  },
): ExecResult {
  const head = `PING ${addr} (${addr}) ${payload}(${payload + 28}) bytes of data.\n`;
  const stats = `\n--- ${addr} ping statistics ---\n`;
  switch (outcome.kind) {
    case "ok": {
      const t = outcome.ms.toFixed(3);
      return ok(
        head + `${payload + 8} bytes from ${addr}: icmp_seq=1 ttl=64 time=${t} ms\n` + stats +
          `1 packets transmitted, 1 received, 0% packet loss, time 0ms\n` +
          `rtt min/avg/max/mdev = ${t}/${t}/${t}/0.000 ms\n`,
      );
    }
    case "local":
      return res(
        head + stats + `1 packets transmitted, 0 received, +1 errors, 100% packet loss, time 0ms\n\n`,
        `ping: local error: message too long, mtu=${outcome.mtu}\n`,
        1,
      );
    case "frag":
      return res(
        head + `From ${outcome.from} icmp_seq=1 Frag needed and DF set (mtu = ${outcome.mtu})\n` + stats +
          `1 packets transmitted, 0 received, +1 errors, 100% packet loss, time 0ms\n\n`,
        "",
        1,
      );
    case "lost":
      return res(head + stats + `1 packets transmitted, 0 received, 100% packet loss, time 0ms\n\n`, "", 1);
  }
}

async function ping(ctx: Ctx, args: string[]): Promise<ExecResult> {
  let payload = 56;
  let wait = 10;
  let addr = "";
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "-s") payload = Number(args[++i]);
    else if (a === "-W") wait = Number(args[++i]);
    else if (a === "-M" || a === "-c" || a === "-i" || a === "-t") i++;
    else if (!a.startsWith("-")) addr = a;
  }
  if (!addr || parseIPv4(addr) === null) return res("", `ping: ${addr}: Name or service not known\n`, 2);
  const size = payload + 28;
  const m = ctx.net.model;
  const lost = async () => {
    await sleep(wait * 1000 * ctx.scale, ctx.signal);
    return pingOutput(addr, payload, { kind: "lost" });
  };
  const isGateway = ctx.pod.metadata.labels?.["networking.liqo.io/component"] === "gateway";
  const netns = `${ctx.cluster}|${ctx.pod.metadata.namespace}/${ctx.pod.metadata.name}`;
  /** A router's "frag needed": the kernel learns the path MTU toward addr (see Network.learnPathMtu). */
  const fragNeeded = (from: string, mtu: number) => {
    ctx.net.learnPathMtu(netns, addr, mtu);
    return pingOutput(addr, payload, { kind: "frag", from, mtu });
  };
  // A path MTU learnt earlier: the kernel refuses the send itself, reporting the cached value.
  const cached = isGateway ? ctx.net.cachedPathMtu(netns, addr) : null;
  if (isGateway) {
    const tun = tunnelAddresses(ctx.pod);
    const peerId = ctx.pod.metadata.labels?.["networking.liqo.io/gateway-name"] ?? null;
    if (addr === tun.own) return pingOutput(addr, payload, { kind: "ok", ms: 0.041 });
    if (addr === tun.peer) {
      const ifaceMtu = ctx.net.gatewayMtu(ctx.cluster, peerId);
      // The route's MTU is the smaller of the interface's and a cached path MTU.
      const limit = Math.min(ifaceMtu, cached ?? Infinity);
      if (size > limit) return pingOutput(addr, payload, { kind: "local", mtu: limit });
      if (m.udpBlockedUnderlay) return await lost();
      const path = ctx.net.tunnelPathMtu(ctx.cluster, peerId);
      if (size > path) {
        if (!m.mtu.icmp) return await lost();
        return fragNeeded(m.mtu.icmpFrom ?? tun.own, path);
      }
      return pingOutput(addr, payload, { kind: "ok", ms: 1.2 + m.udp.rttMs });
    }
  }
  const src = ctx.src;
  const t = src ? ctx.net.resolve(src, addr) : { kind: "none" as const };
  if (t.kind === "none") {
    if (!isGateway) return await lost();
    // The underlay, towards the peer's public endpoint: eth0 then the path between the sites.
    const limit = Math.min(UNDERLAY_IFACE_MTU, cached ?? Infinity);
    if (size > limit) return pingOutput(addr, payload, { kind: "local", mtu: limit });
    if (size > m.mtu.underlay) {
      if (!m.mtu.icmp) return await lost();
      return fragNeeded(m.mtu.icmpFrom ?? addr, m.mtu.underlay);
    }
    if (!m.mtu.underlayEcho) return await lost();
    return pingOutput(addr, payload, { kind: "ok", ms: 0.9 + m.udp.rttMs });
  }
  if (t.kind === "service") return await lost();
  if (size > 1500) return pingOutput(addr, payload, { kind: "local", mtu: 1500 });
  const ex = ctx.net.exchange(src!, t.dst, addr, "icmp", 0, "echo-request", () => "echo-reply", { size });
  if (!ex.back?.delivered) return await lost();
  return pingOutput(addr, payload, { kind: "ok", ms: 0.3 + (t.dst.net === src!.net ? 0 : m.udp.rttMs) });
}

/** The MTU of a gateway pod's `eth0` (the underlay side). */
const UNDERLAY_IFACE_MTU = 1500;

/**
 * `cat /sys/class/net/<iface>/mtu` in a gateway pod's `gateway` container: the same interface MTUs
 * ping's local errors use (liqo-tunnel: the gateway's spec.mtu; eth0: 1500). Null otherwise (the
 * WireGuard state in exec.ts answers the other containers).
 */
function interfaceMtu(ctx: Ctx, container: string, args: string[]): ExecResult | null {
  const isGateway = ctx.pod.metadata.labels?.["networking.liqo.io/component"] === "gateway";
  const m = /^\/sys\/class\/net\/([^/]+)\/mtu$/.exec(args[0] ?? "");
  if (!isGateway || container !== "gateway" || !m || args.length !== 1) return null;
  const peerId = ctx.pod.metadata.labels?.["networking.liqo.io/gateway-name"] ?? null;
  if (m[1] === TUNNEL_IFACE) return ok(`${ctx.net.gatewayMtu(ctx.cluster, peerId)}\n`);
  if (m[1] === "eth0") return ok(`${UNDERLAY_IFACE_MTU}\n`);
  return res("", `cat: can't open '${args[0]}': No such file or directory\n`, 1);
}

// ---------------------------------------------------------------- tcpdump

const pad2 = (n: number): string => String(n).padStart(2, "0");

function tcpdumpTime(ms: number, seq: number): string {
  const d = new Date(ms);
  const micros = String((ms % 1000) * 1000 + (seq % 1000)).padStart(6, "0");
  return `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}.${micros}`;
}

/** tcpdump `-A`: the packet's bytes as ASCII, non-printables as dots (IPv4 + UDP header first). */
function asciiDump(p: SeenPacket): string {
  const payload = new TextEncoder().encode(p.payload);
  const total = 28 + payload.length;
  const hdr = new Uint8Array(28);
  hdr.set([0x45, 0, total >> 8, total & 255, 0x3a, 0x1c, 0x40, 0, 0x3f, 17, 0, 0]);
  const ip = (s: string): number[] => s.split(".").map(Number);
  hdr.set(ip(p.src), 12);
  hdr.set(ip(p.dst), 16);
  hdr.set([
    p.sport >> 8,
    p.sport & 255,
    p.dport >> 8,
    p.dport & 255,
    (8 + payload.length) >> 8,
    (8 + payload.length) & 255,
  ], 20);
  let out = "";
  for (const b of [...hdr, ...payload]) out += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : ".";
  return out;
}

function filterMatches(filter: string[], p: SeenPacket): boolean {
  let proto: string | null = null;
  let port: number | null = null;
  for (let i = 0; i < filter.length; i++) {
    const w = filter[i];
    if (w === "udp" || w === "tcp" || w === "icmp") proto = w;
    else if (w === "port") port = Number(filter[++i]);
    else if (w.includes(" ")) {
      const inner = w.split(/\s+/);
      if (!filterMatches(inner, p)) return false;
    }
  }
  if (proto !== null && p.proto !== proto) return false;
  if (port !== null && p.sport !== port && p.dport !== port) return false;
  return true;
}

async function tcpdump(ctx: Ctx, seconds: number, args: string[]): Promise<ExecResult> {
  const isGateway = ctx.pod.metadata.labels?.["networking.liqo.io/component"] === "gateway";
  if (!isGateway) {
    return res("", "timeout: failed to run command 'tcpdump': No such file or directory\n", 127);
  }
  let iface = "";
  const filter: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "-i") iface = args[++i];
    else if (a === "-s" || a === "-c" || a === "-w") i++;
    else if (!a.startsWith("-")) filter.push(a);
  }
  const objects = ctx.net.objects(ctx.cluster);
  const geneves = objects.filter((o) => o.kind === "InternalNode").map((o) =>
    geneveIface(objects, o.metadata.name)
  );
  const known = iface === TUNNEL_IFACE || iface === "eth0" || iface === "lo" || geneves.includes(iface);
  if (!known) {
    return res("", `tcpdump: ${iface}: No such device exists\n(No such device exists)\n`, 1);
  }
  const link = iface === TUNNEL_IFACE ? "RAW (Raw IP)" : "EN10MB (Ethernet)";
  const banner = `tcpdump: verbose output suppressed, use -v[v]... for full protocol decode\n` +
    `listening on ${iface}, link-type ${link}, snapshot length 256 bytes\n`;
  const start = Date.now();
  await sleep(seconds * 1000, ctx.signal);
  const end = Date.now();
  const podKey = `${ctx.pod.metadata.namespace}/${ctx.pod.metadata.name}`;
  const seen = ctx.net.captured(ctx.cluster, podKey, iface, start, end).filter((p) =>
    filterMatches(filter, p)
  );
  let stdout = "";
  seen.forEach((p, i) => {
    const len = new TextEncoder().encode(p.payload).length;
    stdout += `${
      tcpdumpTime(p.time, i)
    } IP ${p.src}.${p.sport} > ${p.dst}.${p.dport}: ${p.proto.toUpperCase()}, length ${len}\n`;
    stdout += `${asciiDump(p)}\n`;
  });
  const n = seen.length;
  const tail =
    `\n${n} packet${n === 1 ? "" : "s"} captured\n${n} packet${n === 1 ? "" : "s"} received by filter\n` +
    `0 packets dropped by kernel\n`;
  return res(stdout, banner + tail, 124);
}

// ---------------------------------------------------------------- preflight: echo script and API dial

/**
 * The PF-UDP echo script: per target `k@addr@port`, `count` datagrams `echo ff-pf-<nonce>-<k>-<seq>`
 * then `clientip`, each through netexec /dial (the targets at once, like the script's jobs).
 */
async function preflightEchoScript(ctx: Ctx, f: Record<string, string>): Promise<ExecResult> {
  if (!ctx.src) return res("", "sh: netexec not reachable\n", 1);
  const count = Number(f.count ?? "1");
  const targets = (f.targets ?? "").split(",").filter((t) => t !== "").map((t) => {
    const [k, address, port] = t.split("@");
    return { k: Number(k), address, port: Number(port) };
  });
  const jobs = targets.map(async (t) => {
    const lines: string[] = [];
    let spent = 0;
    const one = (request: string) => {
      const r = dialUdpOnce(ctx, t.address, t.port, request);
      spent += r.seconds;
      return goJson({
        responses: r.response !== null ? [r.response] : [],
        errors: r.error !== null ? [r.error] : [],
      });
    };
    for (let seq = 1; seq <= count; seq++) {
      lines.push(`${t.k} ${seq} ${one(`echo ff-pf-${f.nonce}-${t.k}-${seq}`)}`);
    }
    lines.push(`${t.k} ip ${one("clientip")}`);
    await sleep(spent * 1000 * ctx.scale, ctx.signal);
    return lines;
  });
  const out = (await Promise.all(jobs)).flat();
  return ok(out.map((l) => l + "\n").join(""));
}

/** `curl -k … https://<api>/version` from a pod: `network.wan.api[<cluster>]` decides what it meets. */
async function curlApi(ctx: Ctx, c: CurlArgs): Promise<ExecResult> {
  const u = new URL(c.url);
  const api = ctx.net.model.wan.api;
  const id = ctx.src?.clusterId ?? null;
  const mode = api[ctx.cluster] ?? (id !== null ? api[id] : undefined) ?? "ok";
  const host = u.hostname.replace(/^\[|\]$/g, "");
  const port = u.port || "443";
  const maxTime = c.maxTime > 0 ? c.maxTime : 300;
  if (mode === "ok") return ok(`200 ${parseIPv4(host) !== null ? host : "127.0.0.1"}`);
  if (mode === "dns") return res("000 ", `curl: (6) Could not resolve host: ${host}\n`, 6);
  if (mode === "refused") {
    return res(
      "000 ",
      `curl: (7) Failed to connect to ${host} port ${port} after 3 ms: Couldn't connect to server\n`,
      7,
    );
  }
  if (mode === "tls") {
    return res("000 ", `curl: (35) OpenSSL/3.3.2: error:0A00010B:SSL routines::wrong version number\n`, 35);
  }
  await sleep(maxTime * 1000 * ctx.scale, ctx.signal);
  return res(
    "000 ",
    `curl: (28) Connection timed out after ${Math.round(maxTime * 1000) + 1} milliseconds\n`,
    28,
  );
}

// ---------------------------------------------------------------- the router

/** Answers one command in a pod from `net`, or null when it is not a command this router knows. */
export function routeProbeCommand(
  net: Network,
  cluster: string,
  pod: K8sObject,
  command: readonly string[],
  signal: AbortSignal,
  container = "",
): Promise<ExecResult> | null {
  const [cmd, ...args] = command;
  if (cmd === undefined) return null;
  const bin = cmd.split("/").pop() ?? cmd;
  const ctx: Ctx = {
    net,
    cluster,
    pod,
    src: net.endpointOf(cluster, pod),
    signal,
    scale: net.model.timeScale,
  };
  if (bin === "agnhost" && args[0] === "connect") return agnhostConnect(ctx, args.slice(1));
  if (bin === "curl") {
    const c = parseCurl(args);
    if (c && /\/dial\?/.test(c.url)) return curlDial(ctx, c);
    if (c && /^https?:\/\/[^/]+\/version$/.test(c.url)) return curlApi(ctx, c);
    if (c && /\/hostname$/.test(c.url)) {
      const u = new URL(c.url);
      return httpHostname(ctx, u.hostname, Number(u.port || 80), c.maxTime || 300).then((r) =>
        r.ok ? ok(r.body) : res("", r.message, r.code)
      );
    }
    return null;
  }
  if ((bin === "sh" || bin === "bash") && args[0] === "-c" && args[1] !== undefined) {
    const udp = markerFields(args[1], UDP_SERIES_MARKER);
    if (udp) return udpSeries(ctx, udp, args[1]);
    const svc = markerFields(args[1], SERVICE_SWEEP_MARKER);
    if (svc) return serviceSweep(ctx, svc);
    const row = markerFields(args[1], MATRIX_ROW_MARKER);
    if (row) return matrixRowScript(ctx, row);
    const pf = markerFields(args[1], PREFLIGHT_ECHO_MARKER);
    if (pf) return preflightEchoScript(ctx, pf);
    return null;
  }
  if (bin === "getent") return Promise.resolve(getent(ctx, args));
  if (bin === "ping") return ping(ctx, args);
  if (bin === "cat") {
    const r = interfaceMtu(ctx, container, args);
    return r ? Promise.resolve(r) : null;
  }
  if (bin === "timeout" && args[1] === "tcpdump") return tcpdump(ctx, Number(args[0]), args.slice(2));
  return null;
}

/** A {@link NetworkHost} over `model` (the server's exec handler asks it first). */
export function createNetworkHost(
  model: NetworkModel | unknown = {},
): NetworkHost & { readonly network: Network } {
  const net = new Network(NetworkModelSchema.parse(model ?? {}));
  return {
    network: net,
    attach: (cluster, state) => net.attach(cluster, state),
    configure: (cluster, opts) => net.configure(cluster, opts),
    exec: (cluster, pod, container, command, signal) =>
      routeProbeCommand(net, cluster, pod, command, signal, container),
  };
}

/**
 * Streams an exec result that is still being computed over the exec WebSocket: frames go out once
 * the socket is open and the result is ready (exec.ts's streamExec sends at open time).
 */
export function streamExecWhenReady(
  socket: WebSocket,
  protocol: string,
  command: readonly string[],
  pending: Promise<ExecResult>,
  opts: { stdout: boolean; stderr: boolean },
): void {
  const enc = new TextEncoder();
  socket.binaryType = "arraybuffer";
  socket.onmessage = () => {};
  socket.onerror = () => {};
  const opened = new Promise<void>((r) => {
    if (socket.readyState === WebSocket.OPEN) r();
    else socket.addEventListener("open", () => r(), { once: true });
  });
  Promise.all([pending, opened]).then(([result]) => {
    if (socket.readyState !== WebSocket.OPEN) return;
    try {
      if (opts.stdout && result.stdout !== "") {
        socket.send(encodeFrame(protocol, CHANNEL.stdout, enc.encode(result.stdout)));
      }
      if (opts.stderr && result.stderr !== "") {
        socket.send(encodeFrame(protocol, CHANNEL.stderr, enc.encode(result.stderr)));
      }
      socket.send(
        encodeFrame(protocol, CHANNEL.error, enc.encode(JSON.stringify(execStatus(command, result)))),
      );
      socket.close(1000);
    } catch {
      // client went away
    }
  }).catch(() => {
    try {
      socket.close(1011);
    } catch {
      // already closed
    }
  });
}
