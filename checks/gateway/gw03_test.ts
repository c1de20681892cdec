/** GW-03 advertised endpoint matches the exposure. */
import assert from "node:assert/strict";
import { find } from "../../tests/support/fixtures.ts";
import { milan, MILAN_NS, run, text } from "../../tests/support/gateway_checks.ts";

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
