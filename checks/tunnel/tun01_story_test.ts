/** TUN-01 borrows the WireGuard story (TUN-02's) when its Connection is down. */
import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import { find, scriptedProbes } from "../../tests/support/fixtures.ts";
import { probes, rome, ROME_NS, run, text } from "../../tests/support/tunnel_checks.ts";

Deno.test("TUN-01: Connecting says the handshake never completed, naming the endpoint", async () => {
  const objs = await rome();
  find(objs, "Connection", "gw-milan-8d1f03", ROME_NS).status = {
    value: "Connecting",
    latency: { value: "N/A" },
  };
  const o = await run("TUN-01", objs, { probes: probes({ handshakeAgo: null, rx: [0, 0], tx: [400, 548] }) });
  assert.equal(o.status, "fail");
  assert.match(
    o.summary,
    /stuck Connecting \(created .* ago\): WireGuard never completed a handshake with the server at 203\.0\.113\.50:51840/,
  );
  assert.match(text(o), /UDP blocked/);
  assert.match(fixText(o.remediation), /UDP 51840 open end to end toward 203\.0\.113\.50/);
  assert.match(fixText(o.remediation), /flyingfish check --only GW-05 --udp-precise/);
  assert.ok(
    o.remediation?.some((s) =>
      /--udp-precise/.test(JSON.stringify(s.command)) && /needs --allow-ffi/.test(s.comment ?? "")
    ),
    "the --udp-precise hint says it needs --allow-ffi",
  );
  assert.doesNotMatch(fixText(o.remediation), /\$ nc |^nc /m);
  // wg unreadable (exec failed): the Connection alone speaks, as before
  const bare = await run("TUN-01", objs, { probes: scriptedProbes() });
  assert.match(bare.summary, /stuck Connecting \(created .* ago\): the tunnel never came up$/);
});

Deno.test("TUN-01: Error says the tunnel stopped receiving and since when", async () => {
  const objs = await rome();
  find(objs, "Connection", "gw-milan-8d1f03", ROME_NS).status = { value: "Error", latency: { value: "N/A" } };
  const o = await run("TUN-01", objs, {
    probes: probes({ handshakeAgo: 540, rx: [5000, 5000], tx: [9000, 9360] }),
  });
  assert.equal(o.status, "fail");
  assert.match(
    o.summary,
    /is Error: the in-tunnel pinger lost the peer: the tunnel worked, then stopped receiving 9m0s ago/,
  );
  assert.match(fixText(o.remediation), /persistent-keepalive/);
  // a fresh, flowing tunnel adds nothing to the Connection's own words
  const fresh = await run("TUN-01", objs, { probes: probes() });
  assert.equal(fresh.summary, "Connection gw-milan-8d1f03 is Error: the in-tunnel pinger lost the peer");
});
