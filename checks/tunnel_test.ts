import assert from "node:assert/strict";
import { TUNNEL_CHECKS } from "./tunnel.ts";
import type { CheckDef, Outcome } from "./types.ts";
import type { K8sObject } from "../kube/source.ts";
import type { ProbeHub, WgEvidence } from "../probes/hub.ts";
import {
  BASE_TIME,
  baseObjects,
  contextOf,
  find,
  inventoryOf,
  peersOf,
  scriptedProbes,
  viewOf,
} from "../tests/support/fixtures.ts";

const ROME_NS = "liqo-tenant-milan-8d1f03";
const MILAN_NS = "liqo-tenant-rome-4b2a9e";
const ROME_POD = "gw-milan-8d1f03-7c9d5b6f8d-q4xzt";
const MILAN_POD = "gw-rome-4b2a9e-5b8f9c7d6b-w2kxm";
/** rome's gateway key (rome Secret gw-milan-8d1f03, milan's PublicKey CR). */
const ROME_KEY = "yWekIEb7O8JoD5KvxJfEeICYekx+a6stG9+TRBHm0RI=";
/** milan's gateway key (milan Secret gw-rome-4b2a9e, rome's PublicKey CR). */
const MILAN_KEY = "eCdzmlAqNdp4k3Kn0MiDJFewM1a7PirEMJvqYVj4tHk=";
const NEW_MILAN_KEY = "Q2hhbmdlZE1pbGFuS2V5MDAwMDAwMDAwMDAwMDAwMDA=";

interface WgOpts {
  own?: string;
  peer?: string;
  handshakeAgo?: number | null;
  rx?: [number, number];
  tx?: [number, number];
  mtu?: number;
  second?: boolean;
}

function wgState(ns: string, pod: string, o: WgOpts): WgEvidence {
  const t0 = BASE_TIME.getTime();
  const hs = o.handshakeAgo === null ? 0 : Math.floor(t0 / 1000) - (o.handshakeAgo ?? 20);
  const sample = (i: 0 | 1) => ({
    takenAt: t0 + i * 3000,
    interfaces: [{
      name: "liqo-tunnel",
      publicKey: o.own ?? "",
      listenPort: 51840,
      peers: [{
        publicKey: o.peer ?? "",
        endpoint: "203.0.113.50:51840",
        allowedIps: ["0.0.0.0/0"],
        latestHandshake: hs,
        rxBytes: (o.rx ?? [1000, 1360])[i],
        txBytes: (o.tx ?? [2000, 2360])[i],
        persistentKeepalive: null,
      }],
    }],
  });
  return {
    ok: true,
    namespace: ns,
    pod,
    via: "api",
    first: sample(0),
    second: o.second === false ? null : sample(1),
    mtu: { "liqo-tunnel": o.mtu ?? 1340 },
    notes: [],
  };
}

function probes(rome: WgOpts = {}, milan: WgOpts = {}): ProbeHub {
  return scriptedProbes({
    wireguard: (_c, ns, pod) =>
      pod === ROME_POD
        ? wgState(ns, pod, { own: ROME_KEY, peer: MILAN_KEY, ...rome })
        : pod === MILAN_POD
        ? wgState(ns, pod, { own: MILAN_KEY, peer: ROME_KEY, ...milan })
        : { ok: false, namespace: ns, pod, reason: "missing", message: "no such pod" },
  });
}

function check(id: string): CheckDef {
  const c = TUNNEL_CHECKS.find((x) => x.id === id);
  if (!c) throw new Error(`no ${id}`);
  return c;
}

async function run(
  id: string,
  objects: K8sObject[],
  opts: { remote?: K8sObject[]; probes?: ProbeHub; latencyThresholdMs?: number } = {},
): Promise<Outcome> {
  const view = viewOf(inventoryOf(objects), BASE_TIME);
  const remoteView = opts.remote ? viewOf(inventoryOf(opts.remote), BASE_TIME) : null;
  const ctx = contextOf(view, {
    peer: peersOf(view)[0],
    remote: remoteView,
    remotePeer: remoteView ? peersOf(remoteView)[0] : null,
    probes: opts.probes ?? probes(),
    options: opts.latencyThresholdMs ? { latencyThresholdMs: opts.latencyThresholdMs } : {},
  });
  return await check(id).run(ctx);
}

const rome = () => baseObjects("rome");
const milan = () => baseObjects("milan");

function text(o: Outcome): string {
  return [o.summary, ...(o.evidence ?? []), o.remediation ?? ""].join("\n");
}

Deno.test("healthy base: every tunnel check passes, single and dual", async () => {
  for (const [objs, remote] of [[await rome(), await milan()], [await milan(), await rome()]]) {
    for (const c of TUNNEL_CHECKS) {
      for (const r of [undefined, remote]) {
        const o = await run(c.id, objs, { remote: r });
        assert.equal(
          o.status,
          "pass",
          `${c.id}${r ? " dual" : ""}: ${o.summary}\n${(o.evidence ?? []).join("\n")}`,
        );
      }
    }
  }
});

Deno.test("TUN-01: stale Connected, Connecting, Error", async () => {
  const objs = await rome();
  const conn = find(objs, "Connection", "gw-milan-8d1f03", ROME_NS);
  conn.status.latency.timestamp = "2026-11-30T02:16:00Z";
  let o = await run("TUN-01", objs, { remote: await milan() });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /Connected status is stale: last pinger update 14m0s ago/);
  assert.match(text(o), /milan-8d1f03: Connection liqo-tenant-rome-4b2a9e\/gw-rome-4b2a9e Connected/);
  conn.status = { value: "Connecting", latency: { value: "N/A" } };
  o = await run("TUN-01", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /stuck Connecting/);
  assert.match(text(o), /UDP blocked/);
  conn.status.value = "Error";
  assert.match((await run("TUN-01", objs)).summary, /is Error/);
});

Deno.test("TUN-01: no Connection lists the PublicKeys; ping disabled passes", async () => {
  const objs = (await rome()).filter((o) => o.kind !== "Connection");
  const o = await run("TUN-01", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /never accepted a PublicKey/);
  assert.match(
    text(o),
    /PublicKey liqo-tenant-milan-8d1f03\/milan-8d1f03: liqo\.io\/remote-cluster-id=milan-8d1f03/,
  );

  const off = await rome();
  const dep = find(off, "Deployment", "gw-milan-8d1f03", ROME_NS);
  const gwc = dep.spec.template.spec.containers.find((c: { name: string }) => c.name === "gateway");
  gwc.args = gwc.args.map((a: string) => a === "--ping-enabled=true" ? "--ping-enabled=false" : a);
  const conn = find(off, "Connection", "gw-milan-8d1f03", ROME_NS);
  conn.status = { value: "Connected", latency: { value: "N/A" } };
  assert.equal((await run("TUN-01", off)).status, "pass");
  assert.equal((await run("TUN-05", off)).status, "pass");
});

Deno.test("TUN-02: handshake never / old / exec forbidden / garbled", async () => {
  let o = await run("TUN-02", await rome(), { probes: probes({ handshakeAgo: null }) });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /no handshake ever/);
  o = await run("TUN-02", await rome(), { probes: probes({ handshakeAgo: 900 }) });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /last handshake 15m0s ago/);
  const forbidden = scriptedProbes({
    wireguard: (_c, ns, pod) => ({
      ok: false,
      namespace: ns,
      pod,
      reason: "forbidden",
      message: "exec forbidden: pods/exec is forbidden",
    }),
  });
  o = await run("TUN-02", await rome(), { probes: forbidden });
  assert.equal(o.status, "unknown");
  assert.match(
    o.remediation!,
    /kubectl -n liqo-tenant-milan-8d1f03 exec gw-milan-8d1f03-7c9d5b6f8d-q4xzt -c wireguard/,
  );
  assert.equal((await run("TUN-03", await rome(), { probes: forbidden })).status, "unknown");
  assert.equal((await run("TUN-04", await rome(), { probes: forbidden })).status, "unknown");
  assert.equal((await run("TUN-06", await rome(), { probes: forbidden })).status, "pass");

  const garbled = scriptedProbes({
    wireguard: (_c, ns, pod) => ({
      ok: true,
      namespace: ns,
      pod,
      via: "api",
      first: { takenAt: BASE_TIME.getTime(), interfaces: [] },
      second: null,
      mtu: {},
      notes: [
        "first sample: line 1: skipped, expected 5 or 9 fields, got 3",
        "no WireGuard interfaces in the pod",
      ],
    }),
  });
  for (const id of ["TUN-02", "TUN-03", "TUN-04"]) {
    assert.equal((await run(id, await rome(), { probes: garbled })).status, "unknown", id);
  }
  const empty = scriptedProbes({
    wireguard: (_c, ns, pod) => ({
      ok: true,
      namespace: ns,
      pod,
      via: "api",
      first: { takenAt: BASE_TIME.getTime(), interfaces: [] },
      second: null,
      mtu: {},
      notes: ["no WireGuard interfaces in the pod"],
    }),
  });
  assert.equal((await run("TUN-02", await rome(), { probes: empty })).status, "fail");
});

Deno.test("TUN-03: outbound only, flat, single sample", async () => {
  let o = await run("TUN-03", await rome(), { probes: probes({ rx: [5000, 5000], tx: [9000, 9480] }) });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /^outbound only/);
  assert.match(text(o), /tx 160 B\/s/);
  o = await run("TUN-03", await rome(), { probes: probes({ rx: [5000, 5000], tx: [9000, 9000] }) });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /no traffic in either direction/);
  o = await run("TUN-03", await rome(), { probes: probes({ second: false }) });
  assert.equal(o.status, "unknown");
  o = await run("TUN-03", await rome());
  assert.match(o.summary, /rx 120 B\/s, tx 120 B\/s/);
});

Deno.test("TUN-04: PublicKey missing, mislabelled, elsewhere, not configured", async () => {
  let objs = (await rome()).filter((o) => o.kind !== "PublicKey");
  let o = await run("TUN-04", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /PublicKey of peer milan-8d1f03 missing/);

  objs = await rome();
  find(objs, "PublicKey", "milan-8d1f03", ROME_NS).metadata.labels!["liqo.io/remote-cluster-id"] = "milan";
  o = await run("TUN-04", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /mislabelled or wrong namespace/);
  assert.match(text(o), /labelled liqo\.io\/remote-cluster-id=milan, expected milan-8d1f03/);

  objs = await rome();
  find(objs, "PublicKey", "milan-8d1f03", ROME_NS).metadata.namespace = "default";
  o = await run("TUN-04", objs);
  assert.match(text(o), /lives in default, not the gateway namespace/);

  o = await run("TUN-04", await rome(), { probes: probes({ peer: NEW_MILAN_KEY }) });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /wg peers do not include/);
});

Deno.test("TUN-04 dual: stale PublicKey after the peer's gateway was recreated", async () => {
  const m = await milan();
  find(m, "Secret", "gw-rome-4b2a9e", MILAN_NS).data = { publicKey: NEW_MILAN_KEY };
  const p = probes({}, { own: NEW_MILAN_KEY });
  const o = await run("TUN-04", await rome(), { remote: m, probes: p });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /^stale PublicKey after a gateway was recreated/);
  assert.match(
    text(o),
    new RegExp(`milan-8d1f03 liqo-tunnel public-key: ${NEW_MILAN_KEY.replace("+", "\\+")}`),
  );
  // milan's own view is consistent
  assert.equal((await run("TUN-04", m, { remote: await rome(), probes: p })).status, "pass");
});

Deno.test("TUN-05: latency above threshold warns, N/A with pinger on is unknown", async () => {
  const objs = await rome();
  const conn = find(objs, "Connection", "gw-milan-8d1f03", ROME_NS);
  conn.status.latency.value = "450ms";
  const o = await run("TUN-05", objs);
  assert.equal(o.status, "warn");
  assert.match(o.summary, /450ms above the 200 ms threshold/);
  assert.equal((await run("TUN-05", objs, { latencyThresholdMs: 500 })).status, "pass");
  conn.status.latency.value = "850μs";
  assert.equal((await run("TUN-05", objs)).status, "pass");
  conn.status.latency.value = "N/A";
  assert.equal((await run("TUN-05", objs)).status, "unknown");
});

Deno.test("TUN-06: local mismatch warns, cross-cluster mismatch fails, missing clamp warns", async () => {
  let objs = await rome();
  find(objs, "InternalFabric", "milan-8d1f03", ROME_NS).spec.mtu = 1300;
  let o = await run("TUN-06", objs);
  assert.equal(o.status, "warn");
  assert.match(o.summary, /1340 vs 1300/);
  assert.match(text(o), /1272 bytes/);

  const m = await milan();
  find(m, "GatewayServer", "rome-4b2a9e", MILAN_NS).spec.mtu = 1500;
  o = await run("TUN-06", await rome(), { remote: m });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /rome-4b2a9e 1340, milan-8d1f03 1500/);

  objs = (await rome()).filter((x) => x.metadata.name !== "gw-mss-clamping");
  o = await run("TUN-06", objs);
  assert.equal(o.status, "warn");
  assert.match(o.summary, /MSS clamping missing/);

  objs = await rome();
  find(objs, "FirewallConfiguration", "gw-mss-clamping", "liqo").status.conditions[0].host = "gw-old-pod";
  assert.match((await run("TUN-06", objs)).summary, /not applied/);
});

Deno.test("tunnel checks survive objects without status or spec", async () => {
  for (const base of [await rome(), await milan()]) {
    const objs = base.map((o) =>
      ["Connection", "PublicKey", "GatewayServer", "GatewayClient", "InternalFabric", "FirewallConfiguration"]
          .includes(o.kind ?? "")
        ? { ...o, status: undefined, spec: undefined }
        : o
    );
    for (const c of TUNNEL_CHECKS) {
      const o = await run(c.id, objs, { remote: base });
      assert.ok(["pass", "warn", "fail", "skip", "unknown"].includes(o.status), c.id);
    }
  }
});
