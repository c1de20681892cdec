/** TUN-02 WireGuard handshake fresh (and how TUN-03/04/06 take the same wg failures). */
import assert from "node:assert/strict";
import { BASE_TIME, scriptedProbes } from "../../tests/support/fixtures.ts";
import { probes, rome, run } from "../../tests/support/tunnel_checks.ts";

Deno.test("TUN-02: handshake never / old / exec forbidden / garbled", async () => {
  let o = await run("TUN-02", await rome(), { probes: probes({ handshakeAgo: null }) });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /no handshake ever/);
  o = await run("TUN-02", await rome(), { probes: probes({ handshakeAgo: 900 }) });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /last handshake 15m0s ago/);
  const forbidden = scriptedProbes({
    wireguard: (_c, ns, pod) => ({
      ok: false,
      namespace: ns,
      pod,
      reason: "forbidden",
      message: "exec forbidden: pods/exec is forbidden",
    }),
  });
  o = await run("TUN-02", await rome(), { probes: forbidden });
  assert.equal(o.status, "unknown");
  assert.match(
    o.remediation!,
    /kubectl -n liqo-tenant-milan-8d1f03 exec gw-milan-8d1f03-7c9d5b6f8d-q4xzt -c wireguard/,
  );
  assert.equal((await run("TUN-03", await rome(), { probes: forbidden })).status, "unknown");
  assert.equal((await run("TUN-04", await rome(), { probes: forbidden })).status, "unknown");
  assert.equal((await run("TUN-06", await rome(), { probes: forbidden })).status, "pass");

  const garbled = scriptedProbes({
    wireguard: (_c, ns, pod) => ({
      ok: true,
      namespace: ns,
      pod,
      via: "api",
      first: { takenAt: BASE_TIME.getTime(), interfaces: [] },
      second: null,
      mtu: {},
      notes: [
        "first sample: line 1: skipped, expected 5 or 9 fields, got 3",
        "no WireGuard interfaces in the pod",
      ],
    }),
  });
  for (const id of ["TUN-02", "TUN-03", "TUN-04"]) {
    assert.equal((await run(id, await rome(), { probes: garbled })).status, "unknown", id);
  }
  const empty = scriptedProbes({
    wireguard: (_c, ns, pod) => ({
      ok: true,
      namespace: ns,
      pod,
      via: "api",
      first: { takenAt: BASE_TIME.getTime(), interfaces: [] },
      second: null,
      mtu: {},
      notes: ["no WireGuard interfaces in the pod"],
    }),
  });
  assert.equal((await run("TUN-02", await rome(), { probes: empty })).status, "fail");
});
