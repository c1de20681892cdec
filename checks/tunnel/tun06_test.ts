/** TUN-06 tunnel MTU consistent. */
import assert from "node:assert/strict";
import { find } from "../../tests/support/fixtures.ts";
import { milan, MILAN_NS, rome, ROME_NS, run, text } from "../../tests/support/tunnel_checks.ts";

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
