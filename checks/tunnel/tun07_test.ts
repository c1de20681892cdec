import assert from "node:assert/strict";
import { probes, rome, run } from "../../tests/support/tunnel_checks.ts";
import { isTailscaleAddress } from "./tun07.ts";

Deno.test("TUN-07: the default 1340 fits a 1500 eth0", async () => {
  const o = await run("TUN-07", await rome());
  assert.equal(o.status, "pass", o.summary);
  assert.match(o.summary, /fits the underlay .*eth0: 1500, up to 1440/);
});

Deno.test("TUN-07: a 1500 tunnel on a 1500 eth0 fails naming the MTU to set", async () => {
  const o = await run("TUN-07", await rome(), { probes: probes({ mtu: 1500 }) });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /tunnel MTU 1500 too large .* set MTU 1440/);
  assert.ok(JSON.stringify(o.remediation).includes("1440"));
});

Deno.test("TUN-07: a Tailscale endpoint bounds the underlay at 1280 even when eth0 says 1500", async () => {
  const o = await run("TUN-07", await rome(), { probes: probes({ endpoint: "100.101.7.12:51840" }) });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /Tailscale underlay .*100\.101\.7\.12.*MTU 1280.*set MTU 1220/);
});

Deno.test("TUN-07: a small eth0 (nested overlay) fails; unreadable eth0 is unknown", async () => {
  const small = await run("TUN-07", await rome(), { probes: probes({ eth0: 1280 }) });
  assert.equal(small.status, "fail");
  assert.match(small.summary, /eth0: MTU 1280.*set MTU 1220/);
  const none = await run("TUN-07", await rome(), { probes: probes({ eth0: null }) });
  assert.equal(none.status, "unknown");
  assert.match(none.summary, /underlay MTU unknown/);
});

Deno.test("isTailscaleAddress: CGNAT and Tailscale's ULA only", () => {
  assert.equal(isTailscaleAddress("100.64.0.1"), true);
  assert.equal(isTailscaleAddress("100.127.255.254"), true);
  assert.equal(isTailscaleAddress("100.128.0.1"), false);
  assert.equal(isTailscaleAddress("203.0.113.50"), false);
  assert.equal(isTailscaleAddress("fd7a:115c:a1e0::1"), true);
  assert.equal(isTailscaleAddress("fd00::1"), false);
});
