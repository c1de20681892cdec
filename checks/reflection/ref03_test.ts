import assert from "node:assert/strict";
import { find, runOnBase } from "../../tests/support/fixtures.ts";
import type { K8sObject } from "../../kube/source.ts";
import { REF_03 } from "./ref03.ts";

const run = (id: string, cluster: "rome" | "milan", mutate?: (o: K8sObject[]) => K8sObject[] | void) =>
  runOnBase([REF_03], id, cluster, mutate);

Deno.test("REF-03: CreationLoopBackOff and AllFailed fail; old InProgress warns", async () => {
  let o = await run("REF-03", "rome", (objs) => {
    find(objs, "NamespaceMap", "milan-8d1f03").status.currentMapping.demo.phase = "CreationLoopBackOff";
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /CreationLoopBackOff/);
  o = await run("REF-03", "rome", (objs) => {
    const nso = find(objs, "NamespaceOffloading", "offloading", "demo");
    nso.status.offloadingPhase = "AllFailed";
    nso.status.remoteNamespacesConditions["milan-8d1f03"][1].status = "False";
  });
  assert.equal(o.status, "fail");
  o = await run("REF-03", "rome", (objs) => {
    find(objs, "NamespaceOffloading", "offloading", "demo").status.offloadingPhase = "InProgress";
  });
  assert.equal(o.status, "warn");
  o = await run(
    "REF-03",
    "rome",
    (objs) => objs.filter((x) => x.kind !== "NamespaceOffloading" && x.kind !== "NamespaceMap"),
  );
  assert.equal(o.status, "skip");
});
