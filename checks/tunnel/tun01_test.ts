/** TUN-01 Connection established. */
import assert from "node:assert/strict";
import { find } from "../../tests/support/fixtures.ts";
import { milan, rome, ROME_NS, run, text } from "../../tests/support/tunnel_checks.ts";

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

Deno.test("TUN-01: a stale Connection whose gateway pod sits on a NotReady node names the node", async () => {
  const { loseNode } = await import("../../tests/support/env_checks.ts");
  const objs = await rome();
  find(objs, "Connection", "gw-milan-8d1f03", ROME_NS).status.latency.timestamp = "2026-11-30T02:16:00Z";
  loseNode(find(objs, "Node", "rome-worker-1"));
  const o = await run("TUN-01", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /stale.*\(its pod is on NotReady node rome-worker-1, see ENV-07\)/);
  assert.match(
    text(o),
    /gateway pod gw-milan-8d1f03-7c9d5b6f8d-q4xzt on node rome-worker-1: NotReady for 7m0s/,
  );
});
