/** GW-05 UDP probe of the gateway endpoint. */
import assert from "node:assert/strict";
import { type Loose, scriptedProbes } from "../../tests/support/fixtures.ts";
import { milan, rome, run, text } from "../../tests/support/gateway_checks.ts";

const probes = (outcome: "reply" | "silence" | "refused" | "unavailable") =>
  scriptedProbes({ udp: (h, p) => ({ outcome, detail: `${h}:${p} ${outcome}` }) });

/** The base cluster with its tunnel down: the Connection is Connecting (and no wg sample is scripted). */
async function tunnelDown(cluster: () => Promise<Loose[]>): Promise<Loose[]> {
  const objs = await cluster();
  for (const o of objs) if (o.kind === "Connection") o.status = { ...o.status, value: "Connecting" };
  return objs;
}

Deno.test("GW-05: probe outcomes while the tunnel is down decide", async () => {
  assert.equal((await run("GW-05", await rome())).summary, "network probes disabled (--no-network-probes)");
  let o = await run("GW-05", await tunnelDown(rome), { networkProbes: true, probes: probes("reply") });
  assert.equal(o.status, "pass");
  assert.match(text(o), /203\.0\.113\.50:51840/);
  o = await run("GW-05", await tunnelDown(milan), { networkProbes: true, probes: probes("refused") });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /ICMP port unreachable/);
  o = await run("GW-05", await tunnelDown(rome), { networkProbes: true, probes: probes("silence") });
  assert.equal(o.status, "unknown");
  assert.match(o.summary, /--udp-precise/);
  o = await run("GW-05", await tunnelDown(rome), { networkProbes: true, probes: probes("unavailable") });
  assert.equal(o.status, "unknown");
});

Deno.test("GW-05: with the tunnel proven up, an undecided probe passes and a refusal only warns", async () => {
  for (const outcome of ["silence", "unavailable"] as const) {
    const o = await run("GW-05", await rome(), { networkProbes: true, probes: probes(outcome) });
    assert.equal(o.status, "pass", `${outcome}: ${text(o)}`);
    assert.match(o.summary, /the tunnel is up/);
    assert.match(text(o), /tunnel up: Connection gw-milan-8d1f03 Connected, pinger updated/);
  }
  const o = await run("GW-05", await milan(), { networkProbes: true, probes: probes("refused") });
  assert.equal(o.status, "warn");
  assert.match(o.summary, /refused from this host although the tunnel is up/);
});
