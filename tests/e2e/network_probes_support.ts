/** Shared helpers of the network-probe e2e tests (network_probes_*_test.ts). */
import assert from "node:assert/strict";
import { remediationText } from "../../report/remediation.ts";
import type { K8sObject } from "../../kube/source.ts";
import {
  buildClusterConfig,
  type FakeCluster,
  type FakeClusterConfig,
  loadScenario,
  startFakeCluster,
} from "../../fakekube/mod.ts";
import { CLI_PERMISSIONS, FAKE_CLOCK, runCli, SAMPLE_INTERVAL } from "./harness.ts";
import { type Loose, loose } from "../support/fixtures.ts";

export const PEER = "milan-8d1f03";

// deno-lint-ignore no-explicit-any
export type AnyResult = any;

export interface CheckRun {
  code: number;
  stderr: string;
  // deno-lint-ignore no-explicit-any
  report: any;
}

/** Finds one object of the served rome cluster (throws when absent). */
export function find(objects: K8sObject[], pred: (o: Loose) => boolean, what: string): Loose {
  const o = objects.map(loose).find(pred);
  assert.ok(o, `rome has no ${what}`);
  return o;
}

/** Points rome's GatewayClient spec.endpoint at host:port. */
export function setGatewayEndpoint(host: string, port: number): (objects: K8sObject[]) => void {
  return (objects) => {
    const gc = find(objects, (o) => o.kind === "GatewayClient" && o.metadata.name === PEER, "GatewayClient");
    gc.spec.endpoint = { ...gc.spec.endpoint, addresses: [host], port };
  };
}

/** Points rome's ForeignCluster apiServerUrl and control-plane Identity apiServer at `url`. */
export function setApiServer(url: string, apiServerStatus?: string): (objects: K8sObject[]) => void {
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
export function tunnelDown(objects: K8sObject[], cfg?: FakeClusterConfig): void {
  const conn = find(objects, (o) => o.kind === "Connection", "Connection");
  conn.status = { ...conn.status, value: "Connecting" };
  for (const state of Object.values(cfg?.wireguard ?? {})) {
    for (const itf of state?.interfaces ?? []) for (const p of itf.peers ?? []) p.handshakeAgoSeconds = null;
  }
}

/** Serves healthy-consumer's rome with `mutate` applied to its objects (and WireGuard state). */
export async function serveRome(
  ...mutate: ((objects: K8sObject[], cfg?: FakeClusterConfig) => void)[]
): Promise<FakeCluster> {
  const s = await loadScenario("healthy-consumer");
  const cfg = await buildClusterConfig(s, "rome");
  for (const m of mutate) m(cfg.objects, cfg);
  return await startFakeCluster({ ...cfg, tls: false, ...FAKE_CLOCK }); // the probes under test dial their own listeners
}

/** Runs `check -o json` with network probes ON against rome. */
export async function check(
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
export function result(run: CheckRun, id: string): AnyResult {
  const rs = (run.report.results as AnyResult[]).filter((x) => x.id === id);
  assert.equal(rs.length, 1, `expected one ${id} result, got ${JSON.stringify(rs)}`);
  assert.equal(rs[0].peer, PEER);
  return rs[0];
}

export function text(r: AnyResult): string {
  return [r.summary ?? "", ...(r.evidence ?? []), remediationText(r.remediation ?? []) ?? ""].join("\n");
}

export function assertResult(r: AnyResult, status: string, needles: string[]): void {
  const t = text(r);
  assert.equal(r.status, status, `${r.id}: ${t}`);
  for (const n of needles) assert.ok(t.includes(n), `${r.id} lacks ${JSON.stringify(n)}:\n${t}`);
}

/** Other failures than the ones expected (none in healthy-consumer). */
export function assertNoOtherFailures(run: CheckRun, allowed: string[] = []): void {
  const others = (run.report.results as AnyResult[]).filter((x) =>
    x.status === "fail" && !allowed.includes(x.id)
  );
  assert.deepEqual(others.map((x) => `${x.id}: ${x.summary}`), []);
}

/** A loopback UDP port with nothing bound to it. */
export function closedUdpPort(): number {
  const c = Deno.listenDatagram({ transport: "udp", hostname: "127.0.0.1", port: 0 });
  const port = (c.addr as Deno.NetAddr).port;
  c.close();
  return port;
}

/** A loopback TCP port with nothing listening. */
export function closedTcpPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** A loopback UDP listener that echoes (or, with echo=false, swallows) every datagram. */
export function udpListener(
  echo: boolean,
): { port: number; received: () => number; close: () => Promise<void> } {
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
