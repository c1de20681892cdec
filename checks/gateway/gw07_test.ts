/** GW-07 gateway Deployment against what Liqo rendered for it. */
import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import { find } from "../../tests/support/fixtures.ts";
import type { K8sObject } from "../../kube/source.ts";
import { milan, rome, ROME_NS, run } from "../../tests/support/gateway_checks.ts";

/** Every gateway image of rome's gateway (WgGatewayClient, Deployment) at another release. */
function gatewayAt(objs: K8sObject[], v: string): void {
  for (const [kind, name] of [["WgGatewayClient", "milan-8d1f03"], ["Deployment", "gw-milan-8d1f03"]]) {
    const o = find(objs, kind, name, ROME_NS);
    const dep = kind === "Deployment" ? o : o.spec.deployment;
    for (const c of dep.spec.template.spec.containers) c.image = c.image.replace(/:v[0-9.]+$/, `:${v}`);
  }
}

Deno.test("GW-07: the healthy bases pass", async () => {
  for (const objs of [await rome(), await milan()]) {
    const o = await run("GW-07", objs);
    assert.equal(o.status, "pass", o.summary);
  }
});

Deno.test("GW-07: a gateway left at the previous release's images warns, naming 93cb5426f", async () => {
  const objs = await rome();
  gatewayAt(objs, "v1.1.2");
  const o = await run("GW-07", objs);
  assert.equal(o.status, "warn", o.summary);
  assert.match(o.summary, /gw-milan-8d1f03 still runs v1\.1\.2 images under Liqo v1\.2\.0/);
  assert.match(fixText(o.remediation), /93cb5426f/);
  assert.match(fixText(o.remediation), /delete wggatewayclient milan-8d1f03/);
});

Deno.test("GW-07: a Deployment edited away from its WgGatewayClient is named in the evidence", async () => {
  const objs = await rome();
  const dep = find(objs, "Deployment", "gw-milan-8d1f03", ROME_NS);
  const wg = dep.spec.template.spec.containers.find((c: { name: string }) => c.name === "wireguard");
  wg.args = wg.args.map((a: string) => (a === "--mtu=1340" ? "--mtu=1500" : a));
  const o = await run("GW-07", objs);
  assert.equal(o.status, "pass", o.summary);
  assert.ok(o.evidence!.some((l) => /container wireguard args --mtu=1500 instead of --mtu=1340/.test(l)));
});
