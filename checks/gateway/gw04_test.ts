/** GW-04 the client dials the server's endpoint (dual). */
import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import { find } from "../../tests/support/fixtures.ts";
import { milan, MILAN_NS, rome, ROME_NS, run } from "../../tests/support/gateway_checks.ts";

Deno.test("GW-04: stale client endpoint fails, NAT override warns, args drift fails", async () => {
  const m = await milan();
  find(m, "GatewayServer", "rome-4b2a9e", MILAN_NS).status.endpoint.addresses = ["203.0.113.77"];
  const o = await run("GW-04", await rome(), { remote: m });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /stale client endpoint/);
  assert.ok(
    o.evidence!.includes(
      "rome-4b2a9e GatewayClient → 203.0.113.50:51840 | milan-8d1f03 GatewayServer ← 203.0.113.77:51840",
    ),
    o.evidence!.join("\n"),
  );
  // the same from milan's point of view
  assert.equal((await run("GW-04", m, { remote: await rome() })).status, "fail");

  // NAT: server advertises a private NodePort address, client dials a public mapping
  const nat = await milan();
  find(nat, "GatewayServer", "rome-4b2a9e", MILAN_NS).status.endpoint = {
    addresses: ["10.10.20.13"],
    port: 31840,
    protocol: "UDP",
  };
  // the tunnel is up (fresh Connected on both sides): the override passes with the mapping
  const up = await run("GW-04", await rome(), { remote: nat });
  assert.equal(up.status, "pass");
  assert.match(
    up.summary,
    /deliberate NAT override \(UDP 203\.0\.113\.50:51840 → 10\.10\.20\.13:31840\); the tunnel is up/,
  );
  // nothing shows the tunnel up: a warning
  const down = await rome();
  for (const objs of [down, nat]) {
    for (const c of objs.filter((o) => o.kind === "Connection")) {
      c.status = { ...c.status, value: "Connecting" };
    }
  }
  const w = await run("GW-04", down, { remote: nat });
  assert.equal(w.status, "warn");
  assert.match(w.summary, /deliberate NAT.*nothing shows the tunnel up/);
  assert.match(fixText(w.remediation), /UDP 203\.0\.113\.50:51840 → 10\.10\.20\.13:31840/);

  // Deployment args disagree with the GatewayClient
  const r = await rome();
  find(r, "GatewayClient", "milan-8d1f03", ROME_NS).spec.endpoint.addresses = ["203.0.113.77"];
  find(m, "GatewayServer", "rome-4b2a9e", MILAN_NS).status.endpoint.addresses = ["203.0.113.77"];
  const d = await run("GW-04", r, { remote: m });
  assert.equal(d.status, "fail");
  assert.match(d.summary, /running client gateway dials 203\.0\.113\.50:51840/);
});

Deno.test("GW-04: args-drift remediation uses the client's Liqo namespace (not a hard-coded liqo)", async () => {
  const r = (await rome()).map((o) =>
    o.metadata.namespace === "liqo" ? { ...o, metadata: { ...o.metadata, namespace: "liqo-system" } } : o
  );
  const m = await milan();
  find(r, "GatewayClient", "milan-8d1f03", ROME_NS).spec.endpoint.addresses = ["203.0.113.77"];
  find(m, "GatewayServer", "rome-4b2a9e", MILAN_NS).status.endpoint.addresses = ["203.0.113.77"];
  const d = await run("GW-04", r, { remote: m });
  assert.equal(d.status, "fail");
  assert.match(fixText(d.remediation), /kubectl -n liqo-system logs deploy\/liqo-controller-manager/);
  assert.doesNotMatch(fixText(d.remediation), /-n liqo /);
});

Deno.test("GW-04: skips without a remote", async () => {
  assert.equal((await run("GW-04", await rome())).status, "skip");
});
