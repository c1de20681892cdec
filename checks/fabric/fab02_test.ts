import assert from "node:assert/strict";
import { find, runOnBase } from "../../tests/support/fixtures.ts";
import type { K8sObject } from "../../kube/source.ts";
import { FAB_02 } from "./fab02.ts";

const run = (id: string, cluster: "rome" | "milan", mutate?: (o: K8sObject[]) => K8sObject[] | void) =>
  runOnBase([FAB_02], id, cluster, mutate);

const without = (objs: K8sObject[], kind: string, name: string) =>
  objs.filter((o) => !(o.kind === kind && o.metadata.name === name));

Deno.test("FAB-02: stale InternalFabric gatewayIP fails naming both IPs", async () => {
  const o = await run("FAB-02", "rome", (objs) => {
    find(objs, "InternalFabric", "milan-8d1f03").spec.gatewayIP = "10.244.1.99";
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /10\.244\.1\.99.*10\.244\.1\.17/);
});

Deno.test("FAB-02: InternalNode without nodeIP, missing GeneveTunnel, missing InternalFabric", async () => {
  let o = await run("FAB-02", "rome", (objs) => {
    find(objs, "InternalNode", "rome-worker-2").status = {};
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /rome-worker-2.*status\.nodeIP\.remote/);
  o = await run("FAB-02", "rome", (objs) => {
    find(objs, "InternalNode", "rome-worker-1").status = { nodeIP: { remote: "10.244.1.0" } };
  });
  assert.match(o.summary, /rome-worker-1.*status\.nodeIP\.local/);
  o = await run("FAB-02", "rome", (objs) => without(objs, "GeneveTunnel", "milan-8d1f03-rome-cp-1"));
  assert.match(o.summary, /rome-cp-1: no GeneveTunnel/);
  o = await run("FAB-02", "rome", (objs) => without(objs, "InternalFabric", "milan-8d1f03"));
  assert.match(o.summary, /no InternalFabric/);
});

Deno.test("FAB-02: no running gateway pod is a skip", async () => {
  const o = await run("FAB-02", "rome", (objs) => without(objs, "Pod", "gw-milan-8d1f03-7c9d5b6f8d-q4xzt"));
  assert.equal(o.status, "skip");
});

Deno.test("FAB-02: a NotReady node's missing wiring is left to ENV-07", async () => {
  const { loseNode } = await import("../../tests/support/env_checks.ts");
  const o = await run("FAB-02", "milan", (objs) => {
    const w3 = structuredClone(find(objs, "Node", "milan-worker-2"));
    w3.metadata.name = "milan-worker-3";
    loseNode(w3);
    objs.push(w3);
  });
  assert.equal(o.status, "pass", o.summary);
  assert.ok(
    o.evidence!.some((e) => e === "node milan-worker-3: NotReady (see ENV-07), its wiring is not judged"),
  );
});
