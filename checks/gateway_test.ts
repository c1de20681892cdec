import assert from "node:assert/strict";
import { GATEWAY_CHECKS } from "./gateway.ts";
import type { CheckDef, Outcome } from "./types.ts";
import type { K8sObject } from "../kube/source.ts";
import type { ProbeHub } from "../probes/hub.ts";
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
const MILAN_POD = "gw-rome-4b2a9e-5b8f9c7d6b-w2kxm";
const ROME_POD = "gw-milan-8d1f03-7c9d5b6f8d-q4xzt";

function check(id: string): CheckDef {
  const c = GATEWAY_CHECKS.find((x) => x.id === id);
  if (!c) throw new Error(`no ${id}`);
  return c;
}

interface RunOpts {
  remote?: K8sObject[];
  probes?: ProbeHub;
  networkProbes?: boolean;
  preciseUdp?: boolean;
}

async function run(id: string, objects: K8sObject[], opts: RunOpts = {}): Promise<Outcome> {
  const view = viewOf(inventoryOf(objects), BASE_TIME);
  const peer = peersOf(view)[0];
  const remoteView = opts.remote ? viewOf(inventoryOf(opts.remote), BASE_TIME) : null;
  const remotePeer = remoteView ? peersOf(remoteView)[0] : null;
  const ctx = contextOf(view, {
    peer,
    remote: remoteView,
    remotePeer,
    probes: opts.probes,
    options: { networkProbes: opts.networkProbes ?? false, preciseUdp: opts.preciseUdp ?? false },
  });
  return await check(id).run(ctx);
}

const rome = () => baseObjects("rome");
const milan = () => baseObjects("milan");

function text(o: Outcome): string {
  return [o.summary, ...(o.evidence ?? []), o.remediation ?? ""].join("\n");
}

// deno-lint-ignore no-explicit-any
function container(pod: K8sObject, name: string): any {
  // deno-lint-ignore no-explicit-any
  return (pod.status!.containerStatuses as any[]).find((c) => c.name === name);
}

Deno.test("healthy base: every gateway check passes or skips for a reason", async () => {
  for (const [objs, remote] of [[await rome(), await milan()], [await milan(), await rome()]]) {
    for (const c of GATEWAY_CHECKS) {
      const single = await run(c.id, objs);
      const dual = await run(c.id, objs, { remote });
      for (const o of [single, dual]) {
        assert.ok(["pass", "skip"].includes(o.status), `${c.id}: ${o.status} ${o.summary}`);
      }
    }
  }
  assert.equal((await run("GW-01", await milan())).status, "pass");
  assert.equal((await run("GW-02", await milan())).status, "pass");
  assert.equal((await run("GW-03", await milan())).status, "pass");
  assert.equal((await run("GW-04", await rome(), { remote: await milan() })).status, "pass");
  assert.equal((await run("GW-04", await milan(), { remote: await rome() })).status, "pass");
  assert.equal((await run("GW-06", await rome())).status, "pass");
});

Deno.test("GW-01: wireguard CrashLoopBackOff fails with the termination message", async () => {
  const objs = await milan();
  const pod = find(objs, "Pod", MILAN_POD, MILAN_NS);
  const wg = container(pod, "wireguard");
  wg.ready = false;
  wg.restartCount = 7;
  wg.state = {
    waiting: { reason: "CrashLoopBackOff", message: "back-off 5m0s restarting failed container" },
  };
  wg.lastState = {
    terminated: {
      reason: "Error",
      exitCode: 1,
      message: "failed to create liqo-tunnel: operation not supported",
    },
  };
  const o = await run("GW-01", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /wireguard not running.*CrashLoopBackOff/);
  assert.match(text(o), /operation not supported/);
  assert.match(o.remediation!, /logs gw-rome-4b2a9e-5b8f9c7d6b-w2kxm -c wireguard --previous/);
});

Deno.test("GW-01: missing Deployment, zero replicas, pending pod", async () => {
  let objs = (await milan()).filter((o) =>
    !(o.kind === "Deployment" && o.metadata.name === "gw-rome-4b2a9e")
  );
  assert.equal((await run("GW-01", objs)).status, "fail");

  objs = await milan();
  find(objs, "Deployment", "gw-rome-4b2a9e", MILAN_NS).spec.replicas = 0;
  assert.match((await run("GW-01", objs)).summary, /scaled to 0/);

  objs = await milan();
  const pod = find(objs, "Pod", MILAN_POD, MILAN_NS);
  pod.status = {
    phase: "Pending",
    conditions: [{
      type: "PodScheduled",
      status: "False",
      reason: "Unschedulable",
      message: "0/3 nodes are available: 3 Insufficient memory.",
    }],
  };
  const o = await run("GW-01", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /not running \(Pending, Unschedulable\)/);
  assert.match(text(o), /Insufficient memory/);

  objs = (await milan()).filter((o) => !(o.kind === "Pod" && o.metadata.name === MILAN_POD));
  assert.match((await run("GW-01", objs)).summary, /no pod/);
});

Deno.test("GW-01: no gateway — skip when networking disabled, fail otherwise", async () => {
  const objs = (await milan()).filter((o) => o.kind !== "GatewayServer");
  const o = await run("GW-01", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /no gateway for peer rome-4b2a9e/);
  find(objs, "ForeignCluster", "rome-4b2a9e").status.modules.networking.enabled = false;
  const s = await run("GW-01", objs);
  assert.equal(s.status, "skip");
  assert.equal(s.summary, "networking not enabled for this peer");
});

Deno.test("GW-01: recent restart warns; old restart passes", async () => {
  const objs = await milan();
  const wg = container(find(objs, "Pod", MILAN_POD, MILAN_NS), "wireguard");
  wg.restartCount = 1;
  wg.lastState = { terminated: { reason: "OOMKilled", exitCode: 137, finishedAt: "2026-11-30T02:20:00Z" } };
  assert.equal((await run("GW-01", objs)).status, "warn");
  wg.lastState.terminated.finishedAt = "2026-11-29T02:20:00Z";
  assert.equal((await run("GW-01", objs)).status, "pass");
});

Deno.test("GW-02: client side skips; LoadBalancer pending fails with hints", async () => {
  assert.equal((await run("GW-02", await rome())).summary, "the gateway server runs on the peer");
  const objs = await milan();
  find(objs, "Service", "gw-rome-4b2a9e", MILAN_NS).status = { loadBalancer: {} };
  const o = await run("GW-02", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /<pending>/);
  assert.match(o.remediation!, /MetalLB/);
  assert.match(o.remediation!, /--gw-server-service-type NodePort/);
  assert.match(o.remediation!, /UDP 31840/);
});

Deno.test("GW-02: NodePort with private nodes warns, public passes, ClusterIP warns, missing fails", async () => {
  const objs = await milan();
  const svc = find(objs, "Service", "gw-rome-4b2a9e", MILAN_NS);
  svc.spec.type = "NodePort";
  svc.status = { loadBalancer: {} };
  let o = await run("GW-02", objs);
  assert.equal(o.status, "warn");
  assert.match(o.summary, /all node addresses are private/);
  assert.match(text(o), /10\.10\.20\.12 \(private\)/);
  // dual mode: rome's nodes are on 192.168/16, not milan's 10.10/16 → still warn
  const r = await rome();
  find(r, "GatewayClient", "milan-8d1f03", ROME_NS).spec.endpoint = {
    addresses: ["10.10.20.13"],
    port: 31840,
  };
  assert.equal((await run("GW-02", objs, { remote: r })).status, "warn");
  find(objs, "Node", "milan-worker-2").status.addresses.push({ type: "ExternalIP", address: "198.51.100.9" });
  o = await run("GW-02", objs);
  assert.equal(o.status, "pass");
  svc.spec.type = "ClusterIP";
  assert.equal((await run("GW-02", objs)).status, "warn");
  const gone = objs.filter((x) => x !== svc);
  assert.equal((await run("GW-02", gone)).status, "fail");
});

Deno.test("GW-02: NodePort on a private network shared with the peer passes in dual mode", async () => {
  const objs = await milan();
  const svc = find(objs, "Service", "gw-rome-4b2a9e", MILAN_NS);
  svc.spec.type = "NodePort";
  const r = await rome();
  find(r, "Node", "rome-worker-1").status.addresses = [{ type: "InternalIP", address: "10.10.30.4" }];
  find(r, "GatewayClient", "milan-8d1f03", ROME_NS).spec.endpoint = {
    addresses: ["10.10.20.13"],
    port: 31840,
  };
  const o = await run("GW-02", objs, { remote: r });
  assert.equal(o.status, "pass");
  assert.match(text(o), /same private network 10\.10\.0\.0\/16/);
});

Deno.test("GW-03: stale LB address fails with both sides in evidence", async () => {
  const objs = await milan();
  find(objs, "Service", "gw-rome-4b2a9e", MILAN_NS).status = {
    loadBalancer: { ingress: [{ ip: "203.0.113.77" }] },
  };
  const o = await run("GW-03", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /stale address/);
  assert.match(text(o), /status\.endpoint: 203\.0\.113\.50:51840/);
  assert.match(text(o), /203\.0\.113\.77:51840/);
});

Deno.test("GW-03: missing endpoint fails; NodePort expectations; empty address", async () => {
  let objs = await milan();
  delete find(objs, "GatewayServer", "rome-4b2a9e", MILAN_NS).status.endpoint;
  assert.match((await run("GW-03", objs)).summary, /advertises no endpoint/);

  objs = await milan();
  const svc = find(objs, "Service", "gw-rome-4b2a9e", MILAN_NS);
  svc.spec.type = "NodePort";
  const gws = find(objs, "GatewayServer", "rome-4b2a9e", MILAN_NS);
  gws.status.endpoint = { addresses: ["10.10.20.13"], port: 31840, protocol: "UDP" };
  const worker2 = find(objs, "Node", "milan-worker-2");
  const ip = worker2.status.addresses.find((a: { type: string }) => a.type === "InternalIP").address;
  gws.status.endpoint.addresses = [ip];
  assert.equal((await run("GW-03", objs)).status, "pass", ip);
  gws.status.endpoint.port = 51840;
  assert.match((await run("GW-03", objs)).summary, /stale port/);
  gws.status.endpoint = { addresses: [""], port: 31840 };
  assert.match((await run("GW-03", objs)).summary, /empty address/);
});

Deno.test("GW-04: stale client endpoint fails, NAT override warns, args drift fails", async () => {
  const m = await milan();
  find(m, "GatewayServer", "rome-4b2a9e", MILAN_NS).status.endpoint.addresses = ["203.0.113.77"];
  const o = await run("GW-04", await rome(), { remote: m });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /stale client endpoint/);
  assert.ok(
    o.evidence!.includes(
      "rome-4b2a9e GatewayClient → 203.0.113.50:51840 | milan-8d1f03 GatewayServer ← 203.0.113.77:51840",
    ),
    o.evidence!.join("\n"),
  );
  // the same from milan's point of view
  assert.equal((await run("GW-04", m, { remote: await rome() })).status, "fail");

  // NAT: server advertises a private NodePort address, client dials a public mapping
  const nat = await milan();
  find(nat, "GatewayServer", "rome-4b2a9e", MILAN_NS).status.endpoint = {
    addresses: ["10.10.20.13"],
    port: 31840,
    protocol: "UDP",
  };
  const w = await run("GW-04", await rome(), { remote: nat });
  assert.equal(w.status, "warn");
  assert.match(w.summary, /deliberate NAT/);

  // Deployment args disagree with the GatewayClient
  const r = await rome();
  find(r, "GatewayClient", "milan-8d1f03", ROME_NS).spec.endpoint.addresses = ["203.0.113.77"];
  find(m, "GatewayServer", "rome-4b2a9e", MILAN_NS).status.endpoint.addresses = ["203.0.113.77"];
  const d = await run("GW-04", r, { remote: m });
  assert.equal(d.status, "fail");
  assert.match(d.summary, /running client gateway dials 203\.0\.113\.50:51840/);
});

Deno.test("GW-04: args-drift remediation uses the client's Liqo namespace (not a hard-coded liqo)", async () => {
  const r = (await rome()).map((o) =>
    o.metadata.namespace === "liqo" ? { ...o, metadata: { ...o.metadata, namespace: "liqo-system" } } : o
  );
  const m = await milan();
  find(r, "GatewayClient", "milan-8d1f03", ROME_NS).spec.endpoint.addresses = ["203.0.113.77"];
  find(m, "GatewayServer", "rome-4b2a9e", MILAN_NS).status.endpoint.addresses = ["203.0.113.77"];
  const d = await run("GW-04", r, { remote: m });
  assert.equal(d.status, "fail");
  assert.match(d.remediation ?? "", /kubectl -n liqo-system logs deploy\/liqo-controller-manager/);
  assert.doesNotMatch(d.remediation ?? "", /-n liqo /);
});

Deno.test("GW-04: skips without a remote", async () => {
  assert.equal((await run("GW-04", await rome())).status, "skip");
});

Deno.test("GW-05: probe outcomes", async () => {
  assert.equal((await run("GW-05", await rome())).summary, "network probes disabled (--no-network-probes)");
  const probes = (outcome: "reply" | "silence" | "refused" | "unavailable") =>
    scriptedProbes({ udp: (h, p) => ({ outcome, detail: `${h}:${p} ${outcome}` }) });
  let o = await run("GW-05", await rome(), { networkProbes: true, probes: probes("reply") });
  assert.equal(o.status, "pass");
  assert.match(text(o), /203\.0\.113\.50:51840/);
  o = await run("GW-05", await milan(), { networkProbes: true, probes: probes("refused") });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /ICMP port unreachable/);
  o = await run("GW-05", await rome(), { networkProbes: true, probes: probes("silence") });
  assert.equal(o.status, "unknown");
  assert.match(o.summary, /--udp-precise/);
  o = await run("GW-05", await rome(), { networkProbes: true, probes: probes("unavailable") });
  assert.equal(o.status, "unknown");
});

Deno.test("GW-06: repeated restarts and a recent re-creation warn; single replica noted", async () => {
  let objs = await rome();
  container(find(objs, "Pod", ROME_POD, ROME_NS), "gateway").restartCount = 5;
  let o = await run("GW-06", objs);
  assert.equal(o.status, "warn");
  assert.match(o.summary, /gateway restarted 5 times/);
  assert.match(text(o), /single replica/);

  objs = await rome();
  find(objs, "ForeignCluster", "milan-8d1f03").metadata.creationTimestamp = "2026-11-20T09:00:00Z";
  find(objs, "Pod", ROME_POD, ROME_NS).metadata.creationTimestamp = "2026-11-30T02:27:00Z";
  o = await run("GW-06", objs);
  assert.equal(o.status, "warn");
  assert.match(o.summary, /recreated 3m0s ago, peering 9d17h old/);
});

Deno.test("gateway checks survive objects without status", async () => {
  for (const base of [await rome(), await milan()]) {
    const objs = base.map((o) =>
      ["GatewayServer", "GatewayClient", "Service", "Pod", "Deployment", "Node"].includes(o.kind ?? "")
        ? { ...o, status: undefined }
        : o
    );
    for (const c of GATEWAY_CHECKS) {
      const o = await run(c.id, objs, { remote: base, networkProbes: true });
      assert.ok(["pass", "warn", "fail", "skip", "unknown"].includes(o.status), c.id);
    }
  }
});

Deno.test("GW-02: private NodePort reached through the peer's NAT override passes in dual mode", async () => {
  const objs = await milan();
  find(objs, "Service", "gw-rome-4b2a9e", MILAN_NS).spec.type = "NodePort";
  const r = await rome();
  find(r, "GatewayClient", "milan-8d1f03", ROME_NS).spec.endpoint = {
    addresses: ["198.51.100.20"],
    port: 41840,
  };
  const o = await run("GW-02", objs, { remote: r });
  assert.equal(o.status, "pass");
  assert.match(text(o), /GatewayClient dials 198\.51\.100\.20:41840, not a node address/);
});
