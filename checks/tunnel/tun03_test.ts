/** TUN-03 tunnel traffic flows both ways. */
import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import { probes, rome, run, text } from "../../tests/support/tunnel_checks.ts";

Deno.test("TUN-03: outbound only, flat, single sample", async () => {
  let o = await run("TUN-03", await rome(), { probes: probes({ rx: [5000, 5000], tx: [9000, 9480] }) });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /^one-way traffic, outbound only: packets leave toward 203\.0\.113\.50:51840/);
  assert.match(o.summary, /nothing comes back \(rx \+0 B\)/);
  assert.match(o.summary, /so it broke less than 20s ago/);
  assert.match(text(o), /tx 160 B\/s/);
  o = await run("TUN-03", await rome(), { probes: probes({ rx: [5000, 5000], tx: [9000, 9000] }) });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /no traffic in either direction/);
  o = await run("TUN-03", await rome(), { probes: probes({ second: false }) });
  assert.equal(o.status, "unknown");
  o = await run("TUN-03", await rome());
  assert.match(o.summary, /rx 120 B\/s, tx 120 B\/s/);
});

Deno.test("TUN-03: inbound only, and a stale handshake judged alone is still one-way", async () => {
  let o = await run("TUN-03", await rome(), { probes: probes({ rx: [5000, 5400], tx: [9000, 9000] }) });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /^one-way traffic, inbound only: packets arrive \(rx \+400 B/);
  assert.match(fixText(o.remediation), /pinger sends every 2 s/);
  o = await run("TUN-03", await rome(), {
    probes: probes({ handshakeAgo: 600, rx: [5000, 5000], tx: [9000, 9480] }),
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /^one-way traffic, outbound only/);
});
