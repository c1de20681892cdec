/** TUN-02 WireGuard handshake fresh (and how TUN-03/04/06 take the same wg failures). */
import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import type { Outcome } from "../types.ts";
import type { ProbeHub } from "../../probes/hub.ts";
import type { K8sObject } from "../../kube/source.ts";
import {
  BASE_TIME,
  contextOf,
  find,
  inventoryOf,
  peersOf,
  scriptedProbes,
  viewOf,
} from "../../tests/support/fixtures.ts";
import {
  milan,
  probes,
  rome,
  ROME_NS,
  run as runTunnel,
  text,
  TUNNEL_CHECKS,
} from "../../tests/support/tunnel_checks.ts";

/** Runs a tunnel check, optionally with network probes on (the shared helper has no such switch). */
async function run(
  id: string,
  objects: K8sObject[],
  opts: { probes?: ProbeHub; networkProbes?: boolean } = {},
): Promise<Outcome> {
  if (!opts.networkProbes) return await runTunnel(id, objects, opts);
  const view = viewOf(inventoryOf(objects), BASE_TIME);
  const ctx = contextOf(view, {
    peer: peersOf(view)[0],
    probes: opts.probes,
    options: { networkProbes: true },
  });
  return await TUNNEL_CHECKS.find((c) => c.id === id)!.run(ctx);
}

Deno.test("TUN-02: handshake never / old / exec forbidden / garbled", async () => {
  let o = await run("TUN-02", await rome(), { probes: probes({ handshakeAgo: null }) });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /never completed a handshake/);
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
  // Forbidden: the same exec by hand would be refused too; the fix names the missing verb.
  assert.match(fixText(o.remediation), /kubectl -n liqo-tenant-milan-8d1f03 auth can-i create pods\/exec/);
  assert.doesNotMatch(fixText(o.remediation), / exec gw-milan/);
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

Deno.test("TUN-02: never worked names the endpoint and the three suspects", async () => {
  const o = await run("TUN-02", await rome(), {
    probes: probes({ handshakeAgo: null, rx: [0, 0], tx: [400, 548] }),
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /^WireGuard never completed a handshake with the server at 203\.0\.113\.50:51840/);
  assert.match(o.summary, /nothing has ever come back \(rx 0 B\)/);
  assert.match(o.summary, /handshake attempts still go out \(tx \+148 B/);
  assert.match(o.summary, /the endpoint, the UDP path or the keys/);
  assert.match(fixText(o.remediation), /UDP 51840 open end to end toward 203\.0\.113\.50/);
  assert.match(fixText(o.remediation), /flyingfish check --only GW-05 --udp-precise/);
  assert.ok(
    o.remediation?.some((s) =>
      /--udp-precise/.test(JSON.stringify(s.command)) && /needs --allow-ffi/.test(s.comment ?? "")
    ),
    "the --udp-precise hint says it needs --allow-ffi",
  );
  assert.doesNotMatch(fixText(o.remediation), /\$ nc |^nc /m);
  assert.match(fixText(o.remediation), /TUN-04/);
  // server side: nothing ever arrived from the client
  const m = await run("TUN-02", await milan(), {
    probes: probes({}, { handshakeAgo: null, rx: [0, 0], tx: [0, 0] }),
  });
  assert.equal(m.status, "fail");
  assert.match(m.summary, /never completed a handshake with the client.*nothing has ever arrived from it/);
  assert.match(text(m), /the client initiates the handshake/);
});

Deno.test("TUN-02: worked then stopped says since when, and suggests keepalive and NAT checks", async () => {
  const o = await run("TUN-02", await rome(), {
    probes: probes({ handshakeAgo: 540, rx: [5000, 5000], tx: [9000, 9360] }),
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /^the tunnel worked, then stopped receiving 9m0s ago/);
  assert.match(o.summary, /rx frozen at 5000 B while tx still rises/);
  assert.match(o.summary, /NAT mapping or a stateful firewall/);
  assert.match(fixText(o.remediation), /persistent-keepalive 25/);
  assert.match(fixText(o.remediation), /2 s in-tunnel pinger/);
  assert.match(fixText(o.remediation), /UDP idle timeout/);
  assert.match(fixText(o.remediation), /rollout restart deploy\/gw-milan-8d1f03/);
  // pinger off: nothing keeps the mapping alive
  const objs = await rome();
  const dep = find(objs, "Deployment", "gw-milan-8d1f03", ROME_NS);
  const gwc = dep.spec.template.spec.containers.find((c: { name: string }) => c.name === "gateway");
  gwc.args = [
    ...(gwc.args ?? []).filter((a: string) => !a.startsWith("--ping-enabled")),
    "--ping-enabled=false",
  ];
  const off = await run("TUN-02", objs, {
    probes: probes({ handshakeAgo: 540, rx: [5000, 5000], tx: [9000, 9360] }),
  });
  assert.match(fixText(off.remediation), /pinger is off \(--ping-enabled=false\)/);
});

Deno.test("TUN-02: silent and single-sample stale handshakes; one-way under a fresh handshake is TUN-03's", async () => {
  let o = await run("TUN-02", await rome(), {
    probes: probes({ handshakeAgo: 900, rx: [5000, 5000], tx: [9000, 9000] }),
  });
  assert.match(o.summary, /went silent: last handshake 15m0s ago, no traffic either way/);
  o = await run("TUN-02", await rome(), { probes: probes({ handshakeAgo: 400, second: false }) });
  assert.match(o.summary, /^last handshake 6m40s ago: the tunnel stopped working about 6m40s ago$/);
  o = await run("TUN-02", await rome(), {
    probes: probes({ handshakeAgo: 30, rx: [5000, 5000], tx: [9000, 9360] }),
  });
  assert.equal(o.status, "pass");
});

Deno.test("TUN-02: a hostname endpoint that never worked is resolved from here (or says why not)", async () => {
  const objs = await rome();
  find(objs, "GatewayClient", "milan-8d1f03", ROME_NS).spec.endpoint.addresses = ["gw.milan.example.net"];
  const wg = probes({ handshakeAgo: null, rx: [0, 0], tx: [400, 548] });
  let o = await run("TUN-02", objs, { probes: wg });
  assert.match(o.summary, /with the server at gw\.milan\.example\.net:51840/);
  assert.match(text(o), /gw\.milan\.example\.net is a hostname: not resolved \(network probes off\)/);
  const denied: ProbeHub = {
    ...wg,
    resolve: () =>
      Promise.resolve({
        outcome: "unavailable",
        detail:
          "no permission to query DNS (Requires net access): grant --allow-net to resolve endpoint hostnames",
      }),
  };
  o = await run("TUN-02", objs, { probes: denied, networkProbes: true });
  assert.equal(o.status, "fail");
  assert.match(text(o), /not resolved from here: no permission to query DNS.*--allow-net/);
});
