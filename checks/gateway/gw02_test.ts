/** GW-02 gateway server Service exposed. */
import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import { find, type Loose } from "../../tests/support/fixtures.ts";
import { milan, MILAN_NS, rome, ROME_NS, run, text } from "../../tests/support/gateway_checks.ts";

Deno.test("GW-02: client side skips; LoadBalancer pending fails with hints", async () => {
  assert.equal((await run("GW-02", await rome())).summary, "the gateway server runs on the peer");
  const objs = await milan();
  find(objs, "Service", "gw-rome-4b2a9e", MILAN_NS).status = { loadBalancer: {} };
  const o = await run("GW-02", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /<pending>/);
  assert.match(fixText(o.remediation), /MetalLB/);
  assert.match(fixText(o.remediation), /--gw-server-service-type NodePort/);
  assert.match(fixText(o.remediation), /UDP 31840/);
});

/** The peer's Connection on a fixture cluster set to `value` (no fresh Connected status: no proof). */
function connection(objs: Loose[], value: string) {
  for (const c of objs.filter((o) => o.kind === "Connection")) c.status = { ...c.status, value };
}

Deno.test("GW-02: NodePort with private nodes warns, public passes, ClusterIP warns, missing fails", async () => {
  const objs = await milan();
  connection(objs, ""); // no status: nothing says the tunnel is up or down
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
  connection(r, "");
  assert.equal((await run("GW-02", objs, { remote: r })).status, "warn");
  // the tunnel is down: the private addresses are the likely cause
  connection(objs, "Connecting");
  assert.equal((await run("GW-02", objs)).status, "fail");
  connection(objs, "");
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

Deno.test("GW-02: a private NodePort the peer provably reaches passes (fresh Connected here, or on the other side)", async () => {
  const objs = await milan();
  find(objs, "Service", "gw-rome-4b2a9e", MILAN_NS).spec.type = "NodePort";
  let o = await run("GW-02", objs);
  assert.equal(o.status, "pass");
  assert.match(text(o), /the peer reaches it: Connection .* Connected/);
  // dual: no proof on milan, but rome's Connection is fresh
  connection(objs, "Connecting");
  const r = await rome();
  find(r, "GatewayClient", "milan-8d1f03", ROME_NS).spec.endpoint = {
    addresses: ["10.10.20.13"],
    port: 31840,
  };
  o = await run("GW-02", objs, { remote: r });
  assert.equal(o.status, "pass");
  assert.match(text(o), /the peer reaches it: rome-4b2a9e: Connection/);
});

Deno.test("GW-02: a LoadBalancer ingress that is a node's InternalIP fails when the tunnel is down, passes when it is up", async () => {
  const objs = await milan();
  find(objs, "Service", "gw-rome-4b2a9e", MILAN_NS).status = {
    loadBalancer: { ingress: [{ ip: "10.10.20.12" }] },
  };
  let o = await run("GW-02", objs);
  assert.equal(o.status, "pass");
  assert.match(o.summary, /InternalIP of node milan-worker-1\), but the peer provably reaches it/);
  connection(objs, "Connecting");
  o = await run("GW-02", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /10\.10\.20\.12 \(InternalIP of node milan-worker-1\).*K3s ServiceLB/);
  assert.match(text(o), /Connection .* is Connecting/);
  // a hostname-only ingress is not judged by node addresses
  find(objs, "Service", "gw-rome-4b2a9e", MILAN_NS).status = {
    loadBalancer: { ingress: [{ hostname: "lb.example.com" }] },
  };
  assert.equal((await run("GW-02", objs)).status, "pass");
});

Deno.test("GW-02: NodePort advertised by InternalDNS, or from a gateway node without an external address, fails when down", async () => {
  const objs = await milan();
  connection(objs, "Connecting");
  find(objs, "Service", "gw-rome-4b2a9e", MILAN_NS).spec.type = "NodePort";
  find(objs, "Node", "milan-worker-2").status.addresses.push({
    type: "InternalDNS",
    address: "ip-10-10-20-13.eu-west-1.compute.internal",
  });
  let o = await run("GW-02", objs);
  assert.equal(o.status, "fail");
  assert.match(
    o.summary,
    /InternalDNS name ip-10-10-20-13\.eu-west-1\.compute\.internal of node milan-worker-2/,
  );
  const fresh = await milan();
  connection(fresh, "Connecting");
  find(fresh, "Service", "gw-rome-4b2a9e", MILAN_NS).spec.type = "NodePort";
  find(fresh, "Node", "milan-worker-1").status.addresses.push({
    type: "ExternalIP",
    address: "198.51.100.12",
  });
  o = await run("GW-02", fresh);
  assert.equal(o.status, "fail");
  assert.match(
    o.summary,
    /gateway runs on node milan-worker-2, which has no external address .* while milan-worker-1 has one/,
  );
  assert.match(text(o), /nodeSelector/);
});
