import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import { find, runOnBase } from "../../tests/support/fixtures.ts";
import type { K8sObject } from "../../kube/source.ts";
import { FAB_06 } from "./fab06.ts";

const run = (mutate?: (o: K8sObject[]) => K8sObject[] | void) =>
  runOnBase([FAB_06], "FAB-06", "rome", mutate);

/** A masquerade mapping of IP api-server-proxy, as the IP controller writes it while spec.masquerade is true. */
function masqueradeMapping(objs: K8sObject[]): K8sObject {
  const gw = find(objs, "FirewallConfiguration", "api-server-proxy-remap-ipmapping-gw");
  const fw = structuredClone(gw);
  fw.metadata.name = "api-server-proxy-remap-ipmapping-fabric";
  fw.metadata.uid = "b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e";
  fw.metadata.labels = { ...fw.metadata.labels, "networking.liqo.io/firewall-category": "fabric" };
  fw.spec.table.name = "api-server-proxy-remap-ipmapping-fabric-liqo";
  objs.push(fw);
  return fw;
}

Deno.test("FAB-06: the base's api-server-proxy mapping matches its IP", async () => {
  const o = await run();
  assert.equal(o.status, "pass", o.summary);
  assert.match(o.summary, /1 per-IP NAT mapping match/);
});

Deno.test("FAB-06: a masquerade mapping for an IP that no longer asks for it fails, naming 11d11c0b8", async () => {
  const o = await run((objs) => void masqueradeMapping(objs));
  assert.equal(o.status, "fail");
  assert.match(
    o.summary,
    /still masquerades IP liqo\/api-server-proxy \(10\.106\.41\.17\).*spec\.masquerade unset/,
  );
  assert.match(fixText(o.remediation), /11d11c0b8/);
  assert.match(
    fixText(o.remediation),
    /delete firewallconfiguration api-server-proxy-remap-ipmapping-fabric/,
  );
  const ok = await run((objs) => {
    masqueradeMapping(objs);
    find(objs, "IP", "api-server-proxy").spec.masquerade = true;
  });
  assert.equal(ok.status, "pass", ok.summary);
});

Deno.test("FAB-06: a re-allocated IP whose mapping kept the old address, and a mapping without its IP", async () => {
  let o = await run((objs) => void (find(objs, "IP", "api-server-proxy").status.ip = "10.70.0.9"));
  assert.equal(o.status, "fail");
  assert.match(o.summary, /missing dnat dst 10\.70\.0\.9 → 10\.106\.41\.17.*stale dnat dst 10\.70\.0\.2/);
  o = await run((objs) => objs.filter((x) => !(x.kind === "IP" && x.metadata.name === "api-server-proxy")));
  assert.equal(o.status, "fail");
  assert.match(o.summary, /maps IP api-server-proxy, which no longer exists in liqo/);
});
