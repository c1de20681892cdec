/** TUN-03 tunnel traffic flows both ways. */
import assert from "node:assert/strict";
import { probes, rome, run, text } from "../../tests/support/tunnel_checks.ts";

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
