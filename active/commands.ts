/**
 * The exact commands the active probes run inside pods, in one place: the probe pods' agnhost
 * (`netexec` serving TCP/HTTP on {@link PROBE_PORTS}.http and UDP on {@link PROBE_PORTS}.udp, with
 * curl, getent and a shell in the image) and the Liqo gateway pod's `ping` and `tcpdump`. The fake
 * API server's exec router answers these very argv shapes, so builders and router cannot drift.
 */

import { TUNNEL_PREFIX } from "../probes/wireguard.ts";

/** Ports the probe pods' `agnhost netexec` listens on. */
export const PROBE_PORTS = { http: 8080, udp: 8081 } as const;

/** Container name of every probe pod. */
export const PROBE_CONTAINER = "probe";

/** Container of the Liqo gateway pod the MTU and trace probes exec into (it ships ping and tcpdump). */
export const GATEWAY_PROBE_CONTAINER = "gateway";

/** The probe pods' command line: agnhost netexec on both ports. */
export function netexecArgs(): string[] {
  return ["netexec", `--http-port=${PROBE_PORTS.http}`, `--udp-port=${PROBE_PORTS.udp}`];
}

/**
 * TCP connect from a probe pod: `agnhost connect` exits 0 when the connection opened; otherwise
 * exit 1 with stderr starting with TIMEOUT, REFUSED, DNS, OTHER or UNKNOWN.
 */
export function tcpConnect(ip: string, timeoutSeconds = 3): string[] {
  return ["/agnhost", "connect", `${ip}:${PROBE_PORTS.http}`, `--timeout=${timeoutSeconds}s`];
}

/**
 * The URL of the probe pod's own netexec `/dial` endpoint, which sends `request` once over UDP to
 * `ip`:udp-port and answers JSON `{"responses":[...],"errors":[...]}`. Requests netexec answers:
 * `hostname` (the far pod's name), `echo <text>` (the text), `clientip` (the source `ip:port` the
 * far side saw).
 */
export function dialUrl(ip: string, request: string, tries = 1): string {
  const q = new URLSearchParams({
    request,
    protocol: "udp",
    host: ip,
    port: String(PROBE_PORTS.udp),
    tries: String(tries),
  });
  return `http://127.0.0.1:${PROBE_PORTS.http}/dial?${q.toString()}`;
}

/**
 * One UDP request through the local pod's netexec `/dial`: stdout is the JSON answer. netexec waits
 * 5 s for the far side; curl waits longer so netexec's own error (i/o timeout, refused) comes back.
 */
export function udpDial(ip: string, request: string, maxTimeSeconds = 7): string[] {
  return ["curl", "-sS", "--max-time", String(maxTimeSeconds), dialUrl(ip, request)];
}

/** Marker that opens the PROBE-UDP series script (the exec router recognises it). */
export const UDP_SERIES_MARKER = "ff-udp-series";

/** What one datagram of the PROBE-UDP series may wait for its answer (curl `--max-time`), seconds. */
export const UDP_DATAGRAM_WAIT_S = 2;

/**
 * PROBE-UDP: `count` nonce-numbered datagrams (`echo ff-<nonce>-<seq>`, seq `first` … `first +
 * count - 1`) through netexec `/dial`, one after the other. Output: one line per datagram, `<seq>
 * <json answer> <seconds>` where seconds is curl's `%{time_total}` (the round trip plus a loopback
 * HTTP hop). A lost datagram costs {@link UDP_DATAGRAM_WAIT_S}: the exec takes up to count × that.
 */
export function udpSeries(ip: string, nonce: string, count: number, first = 1): string[] {
  const url = dialUrl(ip, `echo ff-${nonce}-SEQ`).replace("SEQ", "$i");
  const last = first + count - 1;
  const script = `: ${UDP_SERIES_MARKER} count=${count} first=${first} host=${ip} nonce=${nonce}; ` +
    `for i in $(seq ${first} ${last}); do printf '%s ' "$i"; ` +
    `curl -sS --max-time ${UDP_DATAGRAM_WAIT_S} -w ' %{time_total}\\n' "${url}" || echo ' -1'; done`;
  return ["sh", "-c", script];
}

/** Marker that opens the PROBE-MATRIX row script (the exec router recognises it). */
export const MATRIX_ROW_MARKER = "ff-matrix-row";

/** One cell of a matrix row: the address dialled and which protocols to try. */
export interface RowCell {
  ip: string;
  tcp: boolean;
  udp: boolean;
}

/**
 * PROBE-MATRIX: every cell of one source pod's row at once, in one exec — a TCP connect
 * ({@link tcpConnect}) and a UDP echo ({@link udpDial} `hostname`) per address, each in its own
 * background subshell, then `wait`. The exec lasts as long as its slowest cell (about the UDP bound),
 * whatever the row's length: a fully red matrix costs rows / exec-bound waves, not cells. Output: one
 * line per try, in completion order: `tcp <k> <exit> <first output line>` or `udp <k> <exit> <curl
 * output on one line>`, k the cell's index in `cells`.
 */
export function matrixRow(cells: readonly RowCell[], tcpTimeoutS: number, udpTimeoutS: number): string[] {
  const spec = cells.map((c, k) => `${k}:${c.ip}:${c.tcp ? "t" : ""}${c.udp ? "u" : ""}`).join(",");
  const q = (argv: readonly string[]) => argv.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
  const jobs = cells.flatMap((c, k) => [
    ...(c.tcp
      ? [
        `(o=$(${
          q(tcpConnect(c.ip, tcpTimeoutS))
        } 2>&1); s=$?; printf 'tcp ${k} %s %s\\n' "$s" "$(printf '%s' "$o" | head -n 1)") &`,
      ]
      : []),
    ...(c.udp
      ? [
        `(o=$(${
          q(udpDial(c.ip, "hostname", udpTimeoutS))
        } 2>&1); s=$?; printf 'udp ${k} %s %s\\n' "$s" "$(printf '%s' "$o" | tr '\\n' ' ')") &`,
      ]
      : []),
  ]);
  const script = `: ${MATRIX_ROW_MARKER} cells=${spec} tcp=${tcpTimeoutS} udp=${udpTimeoutS}; ${
    jobs.join(" ")
  } wait`;
  return ["sh", "-c", script];
}

/** DNS from a probe pod: `getent hosts` prints `<ip>  <name>` lines, exit 2 when not found. */
export function resolveName(name: string): string[] {
  return ["getent", "hosts", name];
}

/** Marker that opens the PROBE-SVC backend-sweep script. */
export const SERVICE_SWEEP_MARKER = "ff-svc-sweep";

/**
 * PROBE-SVC: `count` HTTP requests to the Service's `/hostname`, one per line of output (the
 * answering pod's name, or `ERR <curl exit code>`).
 */
export function serviceSweep(host: string, count: number): string[] {
  const url = `http://${host}:${PROBE_PORTS.http}/hostname`;
  const script = `: ${SERVICE_SWEEP_MARKER} count=${count} host=${host}; ` +
    `for i in $(seq 1 ${count}); do curl -sS --max-time 2 "${url}" && echo || echo "ERR $?"; done`;
  return ["sh", "-c", script];
}

/**
 * PROBE-MTU: one don't-fragment ping (iputils) of `payload` bytes of ICMP data (the IP packet is
 * payload + 28). Exit 0 with "1 received" when it passed; "local error: message too long, mtu=X"
 * (local interface limit), "Frag needed and DF set (mtu = X)" (a hop said so), or 100% loss (a
 * silent black hole) otherwise.
 */
export function dontFragmentPing(address: string, payload: number): string[] {
  return ["ping", "-M", "do", "-c", "1", "-W", "1", "-s", String(payload), address];
}

/** The gateway's WireGuard interface (Liqo's `pkg/gateway/tunnel/const.go`; probes/wireguard.ts spells it). */
export const TUNNEL_INTERFACE: string = TUNNEL_PREFIX;

/** The gateway pod's interface toward the underlay (its pod-network interface). */
export const UNDERLAY_INTERFACE = "eth0";

/**
 * The MTU of an interface of the gateway container (one number): what tells the interface's own
 * limit from a path MTU the kernel cached after an earlier "frag needed" — iputils prints either as
 * `local error: message too long, mtu=X`.
 */
export function interfaceMtu(iface: string): string[] {
  return ["cat", `/sys/class/net/${iface}/mtu`];
}

/**
 * PROBE-TRACE: capture UDP to the probe port on `iface` for `seconds`, printing packet payloads as
 * ASCII (`-A`) so the nonce can be found; `timeout` ends it (exit 124 is the normal end).
 */
export function captureOn(iface: string, seconds: number): string[] {
  return [
    "timeout",
    String(seconds),
    "tcpdump",
    "-i",
    iface,
    "-n",
    "-l",
    "-A",
    "-s",
    "256",
    `udp port ${PROBE_PORTS.udp}`,
  ];
}

/** The WireGuard transfer counters of a gateway (container `wireguard`): `wg show <iface> dump`. */
export function wgDump(iface = TUNNEL_INTERFACE): string[] {
  return ["wg", "show", iface, "dump"];
}

/** Marker that opens the PF-UDP echo script (the exec router recognises it). */
export const PREFLIGHT_ECHO_MARKER = "ff-pf-echo";

/** netexec `/dial` of the pod itself, sending `request` once over UDP to `host`:`port`. */
export function dialUrlTo(host: string, port: number, request: string): string {
  const q = new URLSearchParams({ request, protocol: "udp", host, port: String(port), tries: "1" });
  return `http://127.0.0.1:${PROBE_PORTS.http}/dial?${q.toString()}`;
}

/** The echo text of datagram `seq` to target `k` of a preflight run (netexec lowercases it). */
export function preflightToken(nonce: string, k: number, seq: number): string {
  return `ff-pf-${nonce}-${k}-${seq}`;
}

/**
 * PF-UDP: from the client pod, `count` nonce datagrams (`echo ff-pf-<nonce>-<k>-<seq>`) to every
 * target at once (one background job per target, its datagrams one after the other), then one
 * `clientip` to each (the source the echo server saw: the client side's NAT). Output: one line per
 * datagram, `<k> <seq> <curl output on one line>`, and `<k> ip <curl output>`; netexec waits 5 s
 * for an answer, curl `waitS` (longer, so netexec's own error comes back).
 */
export function preflightEcho(
  targets: readonly { address: string; port: number }[],
  nonce: string,
  count: number,
  waitS = 7,
): string[] {
  const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const spec = targets.map((t, k) => `${k}@${t.address}@${t.port}`).join(",");
  const jobs = targets.map((t, k) => {
    const seqs = Array.from({ length: count }, (_, i) => i + 1);
    const sends = seqs.map((seq) =>
      `o=$(curl -sS --max-time ${waitS} ${
        q(dialUrlTo(t.address, t.port, `echo ${preflightToken(nonce, k, seq)}`))
      } 2>&1); printf '${k} ${seq} %s\\n' "$(printf '%s' "$o" | tr '\\n' ' ')";`
    ).join(" ");
    const ip = `o=$(curl -sS --max-time ${waitS} ${
      q(dialUrlTo(t.address, t.port, "clientip"))
    } 2>&1); printf '${k} ip %s\\n' "$(printf '%s' "$o" | tr '\\n' ' ')";`;
    return `(${sends} ${ip}) &`;
  });
  const script = `: ${PREFLIGHT_ECHO_MARKER} targets=${spec} count=${count} nonce=${nonce}; ${
    jobs.join(" ")
  } wait`;
  return ["sh", "-c", script];
}

/**
 * PF-MTU: one datagram whose IP packet is `packetSize` bytes (`headers` = IP + UDP header bytes),
 * `echo ff-pf-<nonce>-<size>-<padding>` through netexec `/dial`: stdout is netexec's JSON. Linux
 * sends UDP with don't-fragment set below the route MTU (IP_PMTUDISC_WANT), so a hop with a
 * smaller MTU drops it (or answers "frag needed").
 */
export function paddedEcho(
  address: string,
  port: number,
  nonce: string,
  packetSize: number,
  headers: number,
  waitS = 3,
): string[] {
  const text = paddedEchoText(nonce, packetSize, headers);
  return ["curl", "-sS", "--max-time", String(waitS), dialUrlTo(address, port, `echo ${text}`)];
}

/** The text a padded echo carries (and must come back): `ff-pf-<nonce>-<size>-xxx…`. */
export function paddedEchoText(nonce: string, packetSize: number, headers: number): string {
  const head = `ff-pf-${nonce}-${packetSize}-`;
  return head + "x".repeat(Math.max(0, packetSize - headers - "echo ".length - head.length));
}

/**
 * PF-API: TCP + TLS to an API server URL from a pod (`-k`: the pod lacks the cluster's CA; a
 * completed handshake is what is asked). Output `<http code> <remote ip>`; curl's exit code says
 * what failed (6 DNS, 7 refused/unreachable, 28 timeout, 35 TLS).
 */
export function apiReach(url: string, timeoutS = 5): string[] {
  const base = url.replace(/\/+$/, "");
  return [
    "curl",
    "-sS",
    "-k",
    "--max-time",
    String(timeoutS),
    "-o",
    "/dev/null",
    "-w",
    "%{http_code} %{remote_ip}",
    `${base}/version`,
  ];
}
