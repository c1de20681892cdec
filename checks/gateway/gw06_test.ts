/** GW-06 gateway stability. */
import assert from "node:assert/strict";
import { find } from "../../tests/support/fixtures.ts";
import { container, rome, ROME_NS, ROME_POD, run, text } from "../../tests/support/gateway_checks.ts";

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
