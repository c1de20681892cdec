import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import { find, runOnBase } from "../../tests/support/fixtures.ts";
import type { K8sObject } from "../../kube/source.ts";
import { FAB_04 } from "./fab04.ts";

const run = (id: string, cluster: "rome" | "milan", mutate?: (o: K8sObject[]) => K8sObject[] | void) =>
  runOnBase([FAB_04], id, cluster, mutate);

Deno.test("FAB-04: Applied=False fails with the gateway log command", async () => {
  const o = await run("FAB-04", "rome", (objs) => {
    find(objs, "FirewallConfiguration", "milan-8d1f03-remap-podcidr").status.conditions[0].status = "False";
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /milan-8d1f03-remap-podcidr.*Applied=False on gw-milan-8d1f03-7c9d5b6f8d-q4xzt/);
  assert.match(
    fixText(o.remediation),
    /-n liqo-tenant-milan-8d1f03 logs gw-milan-8d1f03-7c9d5b6f8d-q4xzt -c gateway/,
  );
});

Deno.test("FAB-04: missing entry for a fabric pod fails; deleted pods' entries ignored; young objects warn", async () => {
  let o = await run("FAB-04", "rome", (objs) => {
    const rc = find(objs, "RouteConfiguration", "milan-8d1f03-node-gw");
    rc.status.conditions = rc.status.conditions.filter((c: { host: string }) =>
      c.host !== "liqo-fabric-m4q9d"
    );
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /milan-8d1f03-node-gw.*liqo-fabric-m4q9d/);
  assert.match(fixText(o.remediation), /-n liqo logs liqo-fabric-m4q9d/);
  o = await run("FAB-04", "rome", (objs) => {
    const fw = find(objs, "FirewallConfiguration", "milan-8d1f03-masquerade-bypass");
    fw.status.conditions.push({ host: "liqo-fabric-gone1", type: "Applied", status: "False" });
  });
  assert.equal(o.status, "pass");
  o = await run("FAB-04", "rome", (objs) => {
    const fw = find(objs, "FirewallConfiguration", "gw-mss-clamping");
    fw.metadata.creationTimestamp = "2026-11-30T02:29:50Z";
    fw.status = {};
  });
  assert.equal(o.status, "warn");
});
