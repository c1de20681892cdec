/**
 * Emulates the few commands FlyingFish runs inside a gateway pod (`wg show …`, `ip link show`,
 * `cat /sys/class/net/<if>/mtu`) from the scenario's WireGuard state, with output formatted like
 * wireguard-tools and iproute2.
 */

/** One WireGuard peer as configured on an interface. */
export interface WgPeerState {
  publicKey: string;
  presharedKey?: string;
  /** "ip:port" or "(none)". */
  endpoint?: string;
  allowedIps?: string[];
  /** Seconds since the latest handshake; null = never. */
  handshakeAgoSeconds?: number | null;
  rxBytes?: number;
  txBytes?: number;
  rxBytesPerSecond?: number;
  txBytesPerSecond?: number;
  persistentKeepalive?: string | number;
}

/** One WireGuard interface in a pod. */
export interface WgInterfaceState {
  name: string;
  privateKey: string;
  publicKey: string;
  listenPort?: number;
  fwmark?: string | number;
  mtu?: number;
  peers?: WgPeerState[];
}

/** WireGuard state of one pod; null means `wg` fails in that pod. */
export type PodWireguardState = {
  interfaces?: WgInterfaceState[];
  /** Raw text returned for `wg show all dump` (garbled input). */
  dumpOverride?: string | null;
  /** When set, every command fails with this message (exit 1). */
  execError?: string | null;
  /** The pod's eth0 MTU (default 1500): an overlay underlay such as Tailscale gives 1280. */
  eth0Mtu?: number;
} | null;

/** WireGuard state per "namespace/pod". */
export type WireguardState = Record<string, PodWireguardState>;

/** What a command printed and how it exited. */
export interface ExecResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Clock inputs of the emulation. */
export interface ExecClock {
  /** Current time. */
  now: Date;
  /**
   * Seconds since the server started, or a virtual clock advancing per exec call (server.ts
   * `execClockStepSeconds`); drives the transfer counters.
   */
  elapsedSeconds: number;
}

const ok = (stdout: string): ExecResult => ({ stdout, stderr: "", exitCode: 0 });
const fail = (stderr: string, exitCode = 1): ExecResult => ({ stdout: "", stderr, exitCode });
const notFound = (cmd: string): ExecResult => fail(`exec: "${cmd}": executable file not found in $PATH`, 127);

const NO_DEVICE = "Unable to access interface: No such device\n";

function handshakeSecs(p: WgPeerState, clock: ExecClock): number {
  if (p.handshakeAgoSeconds === null || p.handshakeAgoSeconds === undefined) return 0;
  return Math.floor(clock.now.getTime() / 1000) - Math.floor(p.handshakeAgoSeconds);
}

function counters(p: WgPeerState, clock: ExecClock): { rx: number; tx: number } {
  return {
    rx: Math.floor((p.rxBytes ?? 0) + (p.rxBytesPerSecond ?? 0) * clock.elapsedSeconds),
    tx: Math.floor((p.txBytes ?? 0) + (p.txBytesPerSecond ?? 0) * clock.elapsedSeconds),
  };
}

function ifaceLine(i: WgInterfaceState): string {
  return [i.privateKey, i.publicKey, String(i.listenPort ?? 0), String(i.fwmark ?? "off")].join("\t");
}

function peerLine(p: WgPeerState, clock: ExecClock): string {
  const { rx, tx } = counters(p, clock);
  const ips = p.allowedIps && p.allowedIps.length > 0 ? p.allowedIps.join(",") : "(none)";
  return [
    p.publicKey,
    p.presharedKey ?? "(none)",
    p.endpoint ?? "(none)",
    ips,
    String(handshakeSecs(p, clock)),
    String(rx),
    String(tx),
    String(p.persistentKeepalive ?? "off"),
  ].join("\t");
}

function dump(i: WgInterfaceState, clock: ExecClock, prefix: boolean): string[] {
  const pre = prefix ? `${i.name}\t` : "";
  return [pre + ifaceLine(i), ...(i.peers ?? []).map((p) => pre + peerLine(p, clock))];
}

function lines(ls: string[]): string {
  return ls.length === 0 ? "" : ls.join("\n") + "\n";
}

/** Per-peer field printers for `wg show <if|all> <field>`. */
const PEER_FIELDS: Record<string, (p: WgPeerState, c: ExecClock) => string> = {
  "latest-handshakes": (p, c) => `${p.publicKey}\t${handshakeSecs(p, c)}`,
  transfer: (p, c) => {
    const { rx, tx } = counters(p, c);
    return `${p.publicKey}\t${rx}\t${tx}`;
  },
  endpoints: (p) => `${p.publicKey}\t${p.endpoint ?? "(none)"}`,
  "allowed-ips": (p) =>
    `${p.publicKey}\t${p.allowedIps && p.allowedIps.length > 0 ? p.allowedIps.join(" ") : "(none)"}`,
  "persistent-keepalive": (p) => `${p.publicKey}\t${p.persistentKeepalive ?? "off"}`,
  "preshared-keys": (p) => `${p.publicKey}\t${p.presharedKey ?? "(none)"}`,
  peers: (p) => p.publicKey,
};

/** Interface field printers for `wg show <if|all> <field>`. */
const IFACE_FIELDS: Record<string, (i: WgInterfaceState) => string> = {
  "public-key": (i) => i.publicKey,
  "private-key": (i) => i.privateKey,
  "listen-port": (i) => String(i.listenPort ?? 0),
  fwmark: (i) => String(i.fwmark ?? "off"),
};

function wgShow(
  args: string[],
  ifaces: WgInterfaceState[],
  state: NonNullable<PodWireguardState>,
  clock: ExecClock,
) {
  const target = args[0] ?? "all";
  const field = args[1];
  if (target === "interfaces") {
    return ok(lines([ifaces.map((i) => i.name).join(" ")].filter((s) => s !== "")));
  }
  if (target === "all") {
    if (field === "dump") {
      if (typeof state.dumpOverride === "string") return ok(state.dumpOverride);
      return ok(lines(ifaces.flatMap((i) => dump(i, clock, true))));
    }
    if (field === undefined) return ok(lines(ifaces.flatMap((i) => pretty(i, clock))));
    const pf = PEER_FIELDS[field];
    if (pf) return ok(lines(ifaces.flatMap((i) => (i.peers ?? []).map((p) => `${i.name}\t${pf(p, clock)}`))));
    const inf = IFACE_FIELDS[field];
    if (inf) return ok(lines(ifaces.map((i) => `${i.name}\t${inf(i)}`)));
    return fail(usage());
  }
  const iface = ifaces.find((i) => i.name === target);
  if (!iface) return fail(NO_DEVICE);
  if (field === undefined) return ok(lines(pretty(iface, clock)));
  if (field === "dump") return ok(lines(dump(iface, clock, false)));
  const pf = PEER_FIELDS[field];
  if (pf) return ok(lines((iface.peers ?? []).map((p) => pf(p, clock))));
  const inf = IFACE_FIELDS[field];
  if (inf) return ok(lines([inf(iface)]));
  return fail(usage());
}

function usage(): string {
  return "Usage: wg show { <interface> | all | interfaces } [public-key | private-key | listen-port | fwmark | " +
    "peers | preshared-keys | endpoints | allowed-ips | latest-handshakes | transfer | persistent-keepalive | dump]\n";
}

function ago(secs: number): string {
  const parts: string[] = [];
  const units: [number, string][] = [[86400, "day"], [3600, "hour"], [60, "minute"], [1, "second"]];
  for (const [n, u] of units) {
    const v = Math.floor(secs / n);
    secs -= v * n;
    if (v > 0) parts.push(`${v} ${u}${v === 1 ? "" : "s"}`);
  }
  return (parts.length ? parts.join(", ") : "0 seconds") + " ago";
}

function bytes(n: number): string {
  const units: [number, string][] = [[1024 ** 4, "TiB"], [1024 ** 3, "GiB"], [1024 ** 2, "MiB"], [
    1024,
    "KiB",
  ]];
  for (const [d, u] of units) if (n >= d) return `${(n / d).toFixed(2)} ${u}`;
  return `${n} B`;
}

function pretty(i: WgInterfaceState, clock: ExecClock): string[] {
  const out = [`interface: ${i.name}`, `  public key: ${i.publicKey}`, `  private key: (hidden)`];
  if (i.listenPort) out.push(`  listening port: ${i.listenPort}`);
  for (const p of i.peers ?? []) {
    const { rx, tx } = counters(p, clock);
    out.push("", `peer: ${p.publicKey}`);
    if (p.endpoint && p.endpoint !== "(none)") out.push(`  endpoint: ${p.endpoint}`);
    out.push(`  allowed ips: ${p.allowedIps && p.allowedIps.length ? p.allowedIps.join(", ") : "(none)"}`);
    if (p.handshakeAgoSeconds !== null && p.handshakeAgoSeconds !== undefined) {
      out.push(`  latest handshake: ${ago(p.handshakeAgoSeconds)}`);
    }
    if (rx || tx) out.push(`  transfer: ${bytes(rx)} received, ${bytes(tx)} sent`);
    if (p.persistentKeepalive !== undefined && p.persistentKeepalive !== "off") {
      out.push(`  persistent keepalive: every ${p.persistentKeepalive} seconds`);
    }
  }
  return out;
}

function ipLink(args: string[], ifaces: WgInterfaceState[], eth0Mtu: number): ExecResult {
  const oneLine = args.includes("-o") || args.includes("-oneline");
  const rest = args.filter((a) => !a.startsWith("-"));
  if (rest[0] !== "link" && rest[0] !== "l") {
    return fail(`Object "${rest[0] ?? ""}" is unknown, try "ip help".\n`, 255);
  }
  if (rest[1] !== undefined && rest[1] !== "show" && rest[1] !== "list") {
    return fail(`Command "${rest[1]}" is unknown, try "ip link help".\n`, 255);
  }
  let devIdx = 2;
  if (rest[2] === "dev") devIdx = 3;
  const dev = rest[devIdx];
  const links: string[][] = [
    [
      "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000",
      "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00",
    ],
    [
      `2: eth0@if17: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu ${eth0Mtu} qdisc noqueue state UP mode DEFAULT group default `,
      "    link/ether 5a:3c:91:0e:7d:22 brd ff:ff:ff:ff:ff:ff link-netnsid 0",
    ],
    ...ifaces.map((i, n) => [
      `${n + 3}: ${i.name}: <POINTOPOINT,NOARP,UP,LOWER_UP> mtu ${
        i.mtu ?? 1420
      } qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000`,
      "    link/none ",
    ]),
  ];
  const names = ["lo", "eth0", ...ifaces.map((i) => i.name)];
  let selected = links;
  if (dev !== undefined) {
    const idx = names.indexOf(dev);
    if (idx < 0) return fail(`Device "${dev}" does not exist.\n`, 1);
    selected = [links[idx]];
  }
  const text = selected.map((l) => oneLine ? l[0] + "\\" + l[1] : l.join("\n"));
  return ok(lines(text));
}

function cat(args: string[], ifaces: WgInterfaceState[], eth0Mtu: number): ExecResult {
  const out: string[] = [];
  for (const path of args) {
    const dev = path.match(/^\/sys\/class\/net\/([^/]+)\/mtu$/)?.[1];
    const iface = ifaces.find((i) => i.name === dev);
    const mtu = dev === "lo" ? 65536 : dev === "eth0" ? eth0Mtu : iface ? iface.mtu ?? 1420 : undefined;
    if (mtu === undefined) return fail(`cat: can't open '${path}': No such file or directory\n`);
    out.push(String(mtu));
  }
  return ok(lines(out));
}

/** A pod's eth0 MTU on a plain Ethernet underlay. */
const DEFAULT_ETH0_MTU = 1500;

/** Runs one command in a pod whose WireGuard state is `state` (undefined = pod has no WireGuard). */
export function runCommand(
  state: PodWireguardState | undefined,
  command: readonly string[],
  clock: ExecClock,
): ExecResult {
  const [cmd, ...args] = command;
  if (cmd === undefined) return fail("you must specify at least one command for the container\n", 1);
  const bin = cmd.split("/").pop() ?? cmd;
  if (state && typeof state.execError === "string") {
    return fail(state.execError.endsWith("\n") ? state.execError : state.execError + "\n");
  }
  const ifaces = state?.interfaces ?? [];
  switch (bin) {
    case "wg": {
      if (!state) return fail(NO_DEVICE);
      if (args[0] !== "show" && args[0] !== undefined) {
        if (args[0] === "showconf") return fail("Unable to access interface: Operation not permitted\n");
        return fail(`Invalid subcommand: \`${args[0]}'\n`);
      }
      return wgShow(args.slice(1), ifaces, state, clock);
    }
    case "ip":
      return ipLink(args, ifaces, state?.eth0Mtu ?? DEFAULT_ETH0_MTU);
    case "cat":
      return cat(args, ifaces, state?.eth0Mtu ?? DEFAULT_ETH0_MTU);
    default:
      return notFound(cmd);
  }
}
