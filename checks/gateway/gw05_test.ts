/** GW-05 UDP probe of the gateway endpoint. */
import assert from "node:assert/strict";
import { scriptedProbes } from "../../tests/support/fixtures.ts";
import { milan, rome, run, text } from "../../tests/support/gateway_checks.ts";

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
