import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import { baseObjects, find } from "../../tests/support/fixtures.ts";
import { ENV_07 } from "./env07.ts";
import { ENV_CHECKS } from "./mod.ts";
import { loseNode, runner, text } from "../../tests/support/env_checks.ts";

const run = runner([ENV_07]);

Deno.test("ENV-07 comes first in the ENV layer and passes on both healthy bases", async () => {
  assert.equal(ENV_CHECKS[0].id, "ENV-07");
  assert.deepEqual(ENV_07.needs, []);
  for (const c of ["rome", "milan"] as const) {
    const o = await run("ENV-07", await baseObjects(c));
    assert.equal(o.status, "pass", o.summary);
    assert.match(o.summary, /all 3 nodes Ready/);
  }
});

Deno.test("ENV-07 fails for a lost node hosting the gateway, naming it, how long, and every Liqo component", async () => {
  const objs = await baseObjects("milan");
  loseNode(find(objs, "Node", "milan-worker-2"));
  const o = await run("ENV-07", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /^node milan-worker-2 NotReady for 7m0s \(kubelet stopped posting status\) hosts /);
  assert.match(o.summary, /gateway gw-rome-4b2a9e \(pod gw-rome-4b2a9e-5b8f9c7d6b-w2kxm\)/);
  for (const c of ["liqo-fabric", "liqo-crd-replicator", "liqo-metric-agent", "liqo-webhook"]) {
    assert.match(o.summary, new RegExp(c));
  }
  assert.doesNotMatch(o.summary, /liqo-ipam|controller-manager/);
  const t = text(o);
  assert.match(
    t,
    /taints node\.kubernetes\.io\/unreachable:NoSchedule, node\.kubernetes\.io\/unreachable:NoExecute/,
  );
  assert.match(t, /hosts liqo-fabric \(pod liqo\/liqo-fabric-q9c4x\)/);
  assert.match(t, /2\/3 nodes Ready/);
  assert.match(fixText(o.remediation), /kubectl describe node milan-worker-2/);
  assert.match(fixText(o.remediation), /delete pod gw-rome-4b2a9e-5b8f9c7d6b-w2kxm/);
});

Deno.test("ENV-07 counts a virtual-kubelet pod and a Ready=False node with its reason", async () => {
  const objs = await baseObjects("rome");
  const node = find(objs, "Node", "rome-worker-2");
  const ready = node.status.conditions.find((c: { type: string }) => c.type === "Ready");
  Object.assign(ready, {
    status: "False",
    reason: "KubeletNotReady",
    message: "container runtime is down",
    lastTransitionTime: "2026-11-30T02:00:00Z",
  });
  const o = await run("ENV-07", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /rome-worker-2 NotReady for 30m0s \(KubeletNotReady: container runtime is down\)/);
  assert.match(o.summary, /virtual-kubelet vk-milan-8d1f03/);
  assert.match(o.summary, /liqo-controller-manager/);
});

Deno.test("ENV-07 warns for a NotReady node hosting nothing of Liqo", async () => {
  const objs = await baseObjects("milan");
  const w3 = structuredClone(find(objs, "Node", "milan-worker-2"));
  w3.metadata.name = "milan-worker-3";
  loseNode(w3, "2026-11-18T02:30:00Z");
  objs.push(w3);
  const o = await run("ENV-07", objs);
  assert.equal(o.status, "warn");
  assert.match(o.summary, /milan-worker-3 NotReady for 12d.*hosts no Liqo component/);
});

Deno.test("ENV-07 is unknown when a node is NotReady and pods cannot be read", async () => {
  const { contextOf, inventoryOf, viewOf } = await import("../../tests/support/fixtures.ts");
  const objs = await baseObjects("milan");
  loseNode(find(objs, "Node", "milan-worker-2"));
  const inv = inventoryOf(objs, { pods: { reason: "forbidden", message: "pods is forbidden" } });
  const o = await ENV_07.run(contextOf(viewOf(inv)));
  assert.equal(o.status, "unknown");
  assert.match(o.summary, /milan-worker-2 NotReady; cannot tell which Liqo components run there/);
});

Deno.test("ENV-07 warns, not fails, for a lost node whose Liqo pods were replaced elsewhere", async () => {
  const objs = await baseObjects("rome");
  loseNode(find(objs, "Node", "rome-worker-1"));
  for (
    const name of [
      "liqo-crd-replicator-58d4c6f7b9-mz7kf",
      "liqo-metric-agent-6d5c9f8b7-bk4rd",
      "liqo-webhook-5d9c7b8f6-p7hnc",
    ]
  ) {
    const old = find(objs, "Pod", name, "liqo");
    const repl = structuredClone(old);
    repl.metadata.name = `${name}-new`;
    repl.spec.nodeName = "rome-cp-1";
    objs.push(repl);
    old.metadata.deletionTimestamp = "2026-11-30T02:28:00Z";
  }
  const gw = find(objs, "Pod", "gw-milan-8d1f03-7c9d5b6f8d-q4xzt", "liqo-tenant-milan-8d1f03");
  let o = await run("ENV-07", objs);
  // The gateway has no replacement yet: it is down with the node (the fabric pod serves only that node).
  assert.equal(o.status, "fail");
  assert.match(o.summary, /hosts gateway gw-milan-8d1f03 .*liqo-fabric/);
  assert.doesNotMatch(o.summary, /liqo-webhook|liqo-crd-replicator/);
  const repl = structuredClone(gw);
  repl.metadata.name = "gw-milan-8d1f03-7c9d5b6f8d-k9r2v";
  repl.spec.nodeName = "rome-worker-2";
  objs.push(repl);
  gw.metadata.deletionTimestamp = "2026-11-30T02:28:00Z";
  o = await run("ENV-07", objs);
  assert.equal(o.status, "warn", o.summary);
  assert.match(
    o.summary,
    /run elsewhere now \(gateway gw-milan-8d1f03 → rome-worker-2, liqo-crd-replicator → rome-cp-1/,
  );
  assert.match(text(o), /liqo-fabric \(pod liqo\/liqo-fabric-m4q9d\) — DaemonSet pod, serves only this node/);
});
