/**
 * End-to-end host-side network probes: GW-05 (UDP probe of the gateway endpoint) and API-01
 * (TCP+TLS dial of the provider API server) through the real CLI, with network probes ON, against
 * the healthy-consumer scenario (rome, client side) whose GatewayClient endpoint / ForeignCluster
 * apiServerUrl are rewritten to loopback listeners. The CLI runs with --allow-net=127.0.0.1, so
 * nothing ever leaves 127.0.0.0/8; the last test keeps the default TEST-NET addresses and checks the
 * sandbox refusal comes out as `unknown`.
 */
import assert from "node:assert/strict";
import { remediationText } from "../../report/remediation.ts";
import type { K8sObject } from "../../kube/source.ts";
import { buildClusterConfig, loadScenario } from "../../demo/fakekube/scenario.ts";
import { type FakeCluster, type FakeClusterConfig, startFakeCluster } from "../../demo/fakekube/server.ts";
import { CLI_PERMISSIONS, FAKE_CLOCK, runCli, SAMPLE_INTERVAL } from "./harness.ts";
import { type Loose, loose } from "../support/fixtures.ts";

const PEER = "milan-8d1f03";

// deno-lint-ignore no-explicit-any
type AnyResult = any;

interface CheckRun {
  code: number;
  stderr: string;
  // deno-lint-ignore no-explicit-any
  report: any;
}

/** Finds one object of the served rome cluster (throws when absent). */
function find(objects: K8sObject[], pred: (o: Loose) => boolean, what: string): Loose {
  const o = objects.map(loose).find(pred);
  assert.ok(o, `rome has no ${what}`);
  return o;
}

/** Points rome's GatewayClient spec.endpoint at host:port. */
function setGatewayEndpoint(host: string, port: number): (objects: K8sObject[]) => void {
  return (objects) => {
    const gc = find(objects, (o) => o.kind === "GatewayClient" && o.metadata.name === PEER, "GatewayClient");
    gc.spec.endpoint = { ...gc.spec.endpoint, addresses: [host], port };
  };
}

/** Points rome's ForeignCluster apiServerUrl and control-plane Identity apiServer at `url`. */
function setApiServer(url: string, apiServerStatus?: string): (objects: K8sObject[]) => void {
  return (objects) => {
    const fc = find(
      objects,
      (o) => o.kind === "ForeignCluster" && o.metadata.name === PEER,
      "ForeignCluster",
    );
    fc.status.apiServerUrl = url;
    if (apiServerStatus) {
      // deno-lint-ignore no-explicit-any
      const cond = fc.status.conditions.find((c: any) => c.type === "APIServerStatus");
      cond.status = apiServerStatus;
    }
    const id = find(
      objects,
      (o) => o.kind === "Identity" && o.spec?.type === "ControlPlane" && o.spec?.clusterID === PEER,
      "control-plane Identity",
    );
    id.spec.authParams.apiServer = url;
  };
}

/** Breaks rome's tunnel: the Connection is Connecting and WireGuard never completed a handshake. */
function tunnelDown(objects: K8sObject[], cfg?: FakeClusterConfig): void {
  const conn = find(objects, (o) => o.kind === "Connection", "Connection");
  conn.status = { ...conn.status, value: "Connecting" };
  for (const state of Object.values(cfg?.wireguard ?? {})) {
    for (const itf of state?.interfaces ?? []) for (const p of itf.peers ?? []) p.handshakeAgoSeconds = null;
  }
}

/** Serves healthy-consumer's rome with `mutate` applied to its objects (and WireGuard state). */
async function serveRome(
  ...mutate: ((objects: K8sObject[], cfg?: FakeClusterConfig) => void)[]
): Promise<FakeCluster> {
  const s = await loadScenario("healthy-consumer");
  const cfg = await buildClusterConfig(s, "rome");
  for (const m of mutate) m(cfg.objects, cfg);
  return await startFakeCluster({ ...cfg, tls: true, ...FAKE_CLOCK });
}

/** Runs `check -o json` with network probes ON against rome. */
async function check(
  mutate: ((objects: K8sObject[], cfg?: FakeClusterConfig) => void)[],
  opts: { extraArgs?: string[]; permissions?: string[] } = {},
): Promise<CheckRun> {
  const cluster = await serveRome(...mutate);
  const tmp = await Deno.makeTempDir({ prefix: "ff-e2e-netprobes-" });
  try {
    const kc = `${tmp}/rome.kubeconfig`;
    await Deno.writeTextFile(kc, cluster.kubeconfigYaml());
    const r = await runCli(
      [
        "check",
        "--kubeconfig",
        kc,
        "-o",
        "json",
        "--sample-interval",
        SAMPLE_INTERVAL,
        ...(opts.extraArgs ?? []),
      ],
      { permissions: opts.permissions ?? CLI_PERMISSIONS },
    );
    let report = null;
    try {
      report = JSON.parse(r.stdout);
    } catch {
      report = null;
    }
    assert.ok(report, `no JSON report (exit ${r.code}):\n${r.stdout}\n${r.stderr}`);
    return { code: r.code, stderr: r.stderr, report };
  } finally {
    await cluster.close();
    await Deno.remove(tmp, { recursive: true });
  }
}

/** The single result of `id` (for the milan peer). */
function result(run: CheckRun, id: string): AnyResult {
  const rs = (run.report.results as AnyResult[]).filter((x) => x.id === id);
  assert.equal(rs.length, 1, `expected one ${id} result, got ${JSON.stringify(rs)}`);
  assert.equal(rs[0].peer, PEER);
  return rs[0];
}

function text(r: AnyResult): string {
  return [r.summary ?? "", ...(r.evidence ?? []), remediationText(r.remediation ?? []) ?? ""].join("\n");
}

function assertResult(r: AnyResult, status: string, needles: string[]): void {
  const t = text(r);
  assert.equal(r.status, status, `${r.id}: ${t}`);
  for (const n of needles) assert.ok(t.includes(n), `${r.id} lacks ${JSON.stringify(n)}:\n${t}`);
}

/** Other failures than the ones expected (none in healthy-consumer). */
function assertNoOtherFailures(run: CheckRun, allowed: string[] = []): void {
  const others = (run.report.results as AnyResult[]).filter((x) =>
    x.status === "fail" && !allowed.includes(x.id)
  );
  assert.deepEqual(others.map((x) => `${x.id}: ${x.summary}`), []);
}

/** A loopback UDP port with nothing bound to it. */
function closedUdpPort(): number {
  const c = Deno.listenDatagram({ transport: "udp", hostname: "127.0.0.1", port: 0 });
  const port = (c.addr as Deno.NetAddr).port;
  c.close();
  return port;
}

/** A loopback TCP port with nothing listening. */
function closedTcpPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** A loopback UDP listener that echoes (or, with echo=false, swallows) every datagram. */
function udpListener(echo: boolean): { port: number; received: () => number; close: () => Promise<void> } {
  const conn = Deno.listenDatagram({ transport: "udp", hostname: "127.0.0.1", port: 0 });
  let received = 0;
  const loop = (async () => {
    try {
      for await (const [data, addr] of conn) {
        received++;
        if (echo) await conn.send(data, addr);
      }
    } catch {
      // closed
    }
  })();
  return {
    port: (conn.addr as Deno.NetAddr).port,
    received: () => received,
    close: async () => {
      try {
        conn.close();
      } catch { /* closed */ }
      await loop;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// GW-05

Deno.test("e2e GW-05: a loopback UDP echo answers → pass", async () => {
  const echo = udpListener(true);
  try {
    const run = await check([setGatewayEndpoint("127.0.0.1", echo.port)]);
    assertResult(result(run, "GW-05"), "pass", [
      `UDP 127.0.0.1:${echo.port} answered from here`,
      `GatewayClient spec.endpoint: 127.0.0.1:${echo.port}`,
      `from this host: reply — 148-byte reply from 127.0.0.1:${echo.port}`,
    ]);
    assert.ok(echo.received() >= 1, "the echo listener got no datagram");
    assertNoOtherFailures(run);
  } finally {
    await echo.close();
  }
});

Deno.test("e2e GW-05: silence while the tunnel is up → pass, no exit 1 from a host that gets no reply", async () => {
  const sink = udpListener(false);
  try {
    const run = await check([setGatewayEndpoint("127.0.0.1", sink.port)]);
    assertResult(result(run, "GW-05"), "pass", [
      `the tunnel is up, so 127.0.0.1:${sink.port} answers the peer; no reply to this host is normal for WireGuard`,
      "from this host: silence",
      "tunnel up: Connection gw-milan-8d1f03 Connected",
    ]);
    assert.ok(sink.received() >= 1, "the silent listener got no datagram");
    assertNoOtherFailures(run);
    assert.equal(run.code, 0, JSON.stringify(run.report.summary));
    assert.equal(run.report.summary.warn + run.report.summary.unknown, 0);
  } finally {
    await sink.close();
  }
});

Deno.test("e2e GW-05: a listener that never answers while the tunnel is down → unknown", async () => {
  const sink = udpListener(false);
  try {
    const run = await check([setGatewayEndpoint("127.0.0.1", sink.port), tunnelDown]);
    assertResult(result(run, "GW-05"), "unknown", [
      `no reply from 127.0.0.1:${sink.port} — normal for WireGuard`,
      "--udp-precise",
      "from this host: silence",
    ]);
    assert.ok(sink.received() >= 1, "the silent listener got no datagram");
    // The tunnel checks fail (it is down); GW-05 stays unknown: silence decides nothing.
    assertNoOtherFailures(run, ["TUN-01", "TUN-02", "TUN-03", "TUN-05", "REF-01", "REF-02"]);
    assert.equal(run.code, 2);
  } finally {
    await sink.close();
  }
});

Deno.test("e2e GW-05: closed port with --udp-precise and --allow-ffi, tunnel down → fail (ICMP port unreachable)", async () => {
  const port = closedUdpPort();
  const run = await check([setGatewayEndpoint("127.0.0.1", port), tunnelDown], {
    extraArgs: ["--udp-precise"],
    permissions: [...CLI_PERMISSIONS, "--allow-ffi"],
  });
  assertResult(result(run, "GW-05"), "fail", [
    `UDP 127.0.0.1:${port} refused (ICMP port unreachable)`,
    "from this host: refused — ICMP port unreachable",
    `nc -u -v 127.0.0.1 ${port}`,
  ]);
  assertNoOtherFailures(run, ["GW-05", "TUN-01", "TUN-02", "TUN-03", "TUN-05", "REF-01", "REF-02"]);
  assert.equal(run.code, 2);
  assert.equal(run.report.diagnosis?.id, "GW-05", "the refused endpoint explains the tunnel that is down");
});

Deno.test("e2e GW-05: refused from here while the tunnel is up → warn (this host's path), not fail", async () => {
  const port = closedUdpPort();
  const run = await check([setGatewayEndpoint("127.0.0.1", port)], {
    extraArgs: ["--udp-precise"],
    permissions: [...CLI_PERMISSIONS, "--allow-ffi"],
  });
  assertResult(result(run, "GW-05"), "warn", [
    `UDP 127.0.0.1:${port} refused from this host although the tunnel is up`,
    "tunnel up: Connection gw-milan-8d1f03 Connected",
  ]);
  assertNoOtherFailures(run);
  assert.equal(run.code, 1);
});

Deno.test("e2e GW-05: --udp-precise without --allow-ffi falls back, no crash, names --allow-ffi", async () => {
  const port = closedUdpPort();
  const run = await check([setGatewayEndpoint("127.0.0.1", port), tunnelDown], {
    extraArgs: ["--udp-precise"],
  });
  const gw05 = result(run, "GW-05");
  assertResult(gw05, "unknown", [
    "from this host: silence",
    "[precise mode unavailable: precise UDP needs --allow-ffi]",
  ]);
  assert.ok(!/no ICMP refusal/.test(gw05.summary), `claims ICMP was watched: ${gw05.summary}`);
  assert.match(gw05.summary, /normal for WireGuard.*--udp-precise could not run/);
  assertNoOtherFailures(run, ["TUN-01", "TUN-02", "TUN-03", "TUN-05", "REF-01", "REF-02"]);
  assert.equal(run.code, 2);
});

// ---------------------------------------------------------------------------------------------
// API-01

Deno.test("e2e API-01: provider API server at a loopback TLS listener → pass, dialled from here", async () => {
  const provider = await startFakeCluster({ name: "milan", objects: [], wireguard: {}, tls: true });
  try {
    const run = await check([setApiServer(provider.url)]);
    assertResult(result(run, "API-01"), "pass", [
      `provider API server ${provider.url} reachable from the cluster`,
      `apiServerUrl ${provider.url}`,
      `from here: TLS handshake with ${provider.url} in `,
    ]);
    assertNoOtherFailures(run);
  } finally {
    await provider.close();
  }
});

Deno.test("e2e API-01: closed loopback port while the cluster reaches it → pass, not reachable from here", async () => {
  const url = `https://127.0.0.1:${closedTcpPort()}`;
  const run = await check([setApiServer(url)]);
  assertResult(result(run, "API-01"), "pass", [
    "reachable from the cluster but not from here",
    `from here: ${url} not reachable: TCP connection to ${url.slice("https://".length)} refused`,
  ]);
  assertNoOtherFailures(run);
});

Deno.test("e2e API-01: APIServerStatus=Error → fail, saying whether it is reachable from here", async () => {
  const provider = await startFakeCluster({ name: "milan", objects: [], wireguard: {}, tls: true });
  try {
    const open = await check([setApiServer(provider.url, "Error")]);
    assertResult(result(open, "API-01"), "fail", [
      `provider API server ${provider.url} reachable from here but not from the cluster (APIServerStatus=Error)`,
      `from here: TLS handshake with ${provider.url} in `,
    ]);
  } finally {
    await provider.close();
  }
  const url = `https://127.0.0.1:${closedTcpPort()}`;
  const closed = await check([setApiServer(url, "Error")]);
  assertResult(result(closed, "API-01"), "fail", [
    `provider API server ${url} not reachable from the cluster (APIServerStatus=Error)`,
    `from here: ${url} not reachable: TCP connection to`,
  ]);
});

// ---------------------------------------------------------------------------------------------
// Sandbox: default TEST-NET addresses, probes ON, --allow-net=127.0.0.1

for (const precise of [false, true]) {
  const mode = precise ? "--udp-precise with --allow-ffi (FFI bypasses --allow-net)" : "default UDP probe";
  Deno.test(`e2e GW-05/API-01: TEST-NET targets outside --allow-net, tunnel down → unknown naming the permission (${mode})`, async () => {
    const run = await check([tunnelDown], {
      extraArgs: precise ? ["--udp-precise"] : [],
      permissions: precise ? [...CLI_PERMISSIONS, "--allow-ffi"] : CLI_PERMISSIONS,
    });
    assert.ok(!/NotCapable|Requires net access|Uncaught/.test(run.stderr), run.stderr);
    // The permission is checked before any socket is opened (precise mode included): nothing is sent.
    assertResult(result(run, "GW-05"), "unknown", [
      "UDP probe not possible: no net permission for 203.0.113.50:51840 (--allow-net)",
      "from this host: unavailable — no net permission for 203.0.113.50:51840 (--allow-net)",
    ]);
    // API-01's status follows the cluster's own APIServerStatus (Established): the dial from here is
    // evidence only, and here it was not attempted.
    assertResult(result(run, "API-01"), "pass", [
      "provider API server https://203.0.113.20:6443 reachable from the cluster",
      "not dialled from here: no net permission for 203.0.113.20:6443 (--allow-net)",
    ]);
    assertNoOtherFailures(run, ["TUN-01", "TUN-02", "TUN-03", "TUN-05", "REF-01", "REF-02"]);
    assert.equal(run.code, 2);
  });
}
