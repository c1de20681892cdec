import assert from "node:assert/strict";
import { find, loose, runOnBase } from "../../tests/support/fixtures.ts";
import type { K8sObject } from "../../kube/source.ts";
import { REF_02 } from "./ref02.ts";

const run = (id: string, cluster: "rome" | "milan", mutate?: (o: K8sObject[]) => K8sObject[] | void) =>
  runOnBase([REF_02], id, cluster, mutate);

// deno-lint-ignore no-explicit-any
const cond = (o: any, type: string) => o.status.conditions.find((c: { type: string }) => c.type === type);

Deno.test("REF-02: NotReady + NetworkUnavailable, and VK not running", async () => {
  let o = await run("REF-02", "rome", (objs) => {
    const n = find(objs, "Node", "milan-8d1f03");
    Object.assign(cond(n, "Ready"), { status: "False", reason: "KubeletNotReady" });
    Object.assign(cond(n, "NetworkUnavailable"), { status: "True", reason: "LiqoNetworkingDown" });
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /NotReady.*NetworkUnavailable=True/);
  o = await run("REF-02", "rome", (objs) => {
    find(objs, "Deployment", "vk-milan-8d1f03").status.readyReplicas = 0;
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /virtual kubelet vk-milan-8d1f03 not running/);
  o = await run(
    "REF-02",
    "rome",
    (objs) => objs.filter((x) => !(x.kind === "Pod" && loose(x).spec?.nodeName === "milan-8d1f03")),
  );
  assert.equal(o.status, "pass");
  assert.ok(o.evidence!.some((e) => e.includes("Ready but nothing runs")));
  o = await run("REF-02", "rome", (objs) => {
    delete find(objs, "Node", "milan-8d1f03").status;
    delete find(objs, "VirtualNode", "milan-8d1f03").status;
  });
  assert.equal(o.status, "fail");
});
