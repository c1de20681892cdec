import assert from "node:assert/strict";
import { find, runOnBase } from "../tests/support/fixtures.ts";
import type { K8sObject } from "../kube/source.ts";
import { REFLECTION_CHECKS } from "./reflection.ts";

const run = (id: string, cluster: "rome" | "milan", mutate?: (o: K8sObject[]) => K8sObject[] | void) =>
  runOnBase(REFLECTION_CHECKS, id, cluster, mutate);

// deno-lint-ignore no-explicit-any
const cond = (o: any, type: string) => o.status.conditions.find((c: { type: string }) => c.type === type);

Deno.test("REF: healthy base passes (REF-02 skips on the provider)", async () => {
  for (const d of REFLECTION_CHECKS) {
    assert.equal((await run(d.id, "rome")).status, "pass", `${d.id} on rome`);
  }
  assert.equal((await run("REF-01", "milan")).status, "pass");
  assert.equal((await run("REF-02", "milan")).status, "skip");
  assert.equal((await run("REF-03", "milan")).status, "pass");
});

Deno.test("REF-01: provider endpoints forced ready:false with stale FC condition", async () => {
  const o = await run("REF-01", "milan", (objs) => {
    // deno-lint-ignore no-explicit-any
    const eps = objs.find((x) => x.kind === "EndpointSlice" && x.metadata.name === "web-8k2lq") as any;
    eps.endpoints[0].conditions.ready = false;
    const fc = find(objs, "ForeignCluster", "rome-4b2a9e");
    // deno-lint-ignore no-explicit-any
    fc.status.modules.networking.conditions.find((c: any) => c.type === "NetworkConnectionStatus").status =
      "Error";
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /FC networking or API-server condition not Established/);
  assert.ok(o.evidence!.some((e) => e.includes("the ForeignCluster condition is stale")));
});

Deno.test("REF-01: consumer endpoint outside the remapped CIDRs fails", async () => {
  const o = await run("REF-01", "rome", (objs) => {
    // deno-lint-ignore no-explicit-any
    const eps = objs.find((x) => x.kind === "EndpointSlice" && x.metadata.name === "web-8k2lq") as any;
    eps.endpoints[1].addresses = ["10.244.1.45"];
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /10\.244\.1\.45.*outside/);
});

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
    (objs) => objs.filter((x) => !(x.kind === "Pod" && x.spec?.nodeName === "milan-8d1f03")),
  );
  assert.equal(o.status, "pass");
  assert.ok(o.evidence!.some((e) => e.includes("Ready but nothing runs")));
  o = await run("REF-02", "rome", (objs) => {
    delete find(objs, "Node", "milan-8d1f03").status;
    delete find(objs, "VirtualNode", "milan-8d1f03").status;
  });
  assert.equal(o.status, "fail");
});

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
