/** TUN-05 tunnel latency. */
import assert from "node:assert/strict";
import { find } from "../../tests/support/fixtures.ts";
import { rome, ROME_NS, run } from "../../tests/support/tunnel_checks.ts";

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
