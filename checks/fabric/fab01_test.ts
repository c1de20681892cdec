import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import { find, runOnBase } from "../../tests/support/fixtures.ts";
import type { K8sObject } from "../../kube/source.ts";
import { FAB_01, tolerates } from "./fab01.ts";

const run = (id: string, cluster: "rome" | "milan", mutate?: (o: K8sObject[]) => K8sObject[] | void) =>
  runOnBase([FAB_01], id, cluster, mutate);

const without = (objs: K8sObject[], kind: string, name: string) =>
  objs.filter((o) => !(o.kind === kind && o.metadata.name === name));

Deno.test("FAB-01: untolerated taint names node and taint", async () => {
  const o = await run("FAB-01", "rome", (objs) => {
    find(objs, "Node", "rome-worker-2").spec.taints = [{
      key: "dedicated",
      value: "gpu",
      effect: "NoSchedule",
    }];
    return without(objs, "Pod", "liqo-fabric-t8w3z");
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /rome-worker-2.*won't reach the peer/);
  assert.ok(o.evidence!.some((e) => e.includes("dedicated=gpu:NoSchedule not tolerated")));
  assert.match(fixText(o.remediation), /kubectl taint nodes rome-worker-2 dedicated=gpu:NoSchedule-/);
});

Deno.test("FAB-01: crashing fabric pod reports last termination", async () => {
  const o = await run("FAB-01", "rome", (objs) => {
    const p = find(objs, "Pod", "liqo-fabric-m4q9d");
    p.status.conditions.find((c: { type: string }) => c.type === "Ready").status = "False";
    p.status.containerStatuses[0] = {
      ...p.status.containerStatuses[0],
      ready: false,
      restartCount: 7,
      state: { waiting: { reason: "CrashLoopBackOff" } },
      lastState: {
        terminated: { reason: "Error", exitCode: 1, message: "kernel version 5.4.0 does not satisfy 5.10.0" },
      },
    };
  });
  assert.equal(o.status, "fail");
  assert.ok(o.evidence!.some((e) => e.includes("CrashLoopBackOff") && e.includes("kernel version")));
  assert.match(fixText(o.remediation), /logs liqo-fabric-m4q9d --previous/);
});

Deno.test("FAB-01: networking disabled and no DaemonSet is a skip", async () => {
  const o = await run("FAB-01", "rome", (objs) => {
    const cm = find(objs, "Deployment", "liqo-controller-manager");
    const args: string[] = cm.spec.template.spec.containers[0].args;
    cm.spec.template.spec.containers[0].args = args.map((a) =>
      a === "--networking-enabled=true" ? "--networking-enabled=false" : a
    );
    return without(objs, "DaemonSet", "liqo-fabric");
  });
  assert.equal(o.status, "skip");
});

Deno.test("FAB-01: missing status fields do not throw", async () => {
  const o = await run("FAB-01", "rome", (objs) => {
    for (const x of objs) if (x.kind === "Pod" || x.kind === "DaemonSet") delete x.status;
  });
  assert.equal(o.status, "fail");
});

Deno.test("tolerates follows Kubernetes semantics", () => {
  assert.ok(tolerates({ operator: "Exists" }, { key: "a", effect: "NoSchedule" }));
  assert.ok(
    tolerates({ key: "a", operator: "Exists", effect: "NoSchedule" }, {
      key: "a",
      value: "x",
      effect: "NoSchedule",
    }),
  );
  assert.ok(!tolerates({ key: "a", value: "y" }, { key: "a", value: "x", effect: "NoSchedule" }));
  assert.ok(
    !tolerates({ key: "a", operator: "Exists", effect: "NoExecute" }, { key: "a", effect: "NoSchedule" }),
  );
});

Deno.test("FAB-01: a fabric pod on a lost node is that node's (see ENV-07): warn", async () => {
  const { loseNode } = await import("../../tests/support/env_checks.ts");
  const o = await run("FAB-01", "milan", (objs) => {
    loseNode(find(objs, "Node", "milan-worker-2"));
    const pod = find(objs, "Pod", "liqo-fabric-q9c4x", "liqo");
    pod.status.conditions.find((c: { type: string }) => c.type === "Ready").status = "False";
  });
  assert.equal(o.status, "warn");
  assert.match(o.summary, /no ready fabric pod on NotReady node milan-worker-2 \(see ENV-07\)/);
  assert.ok(
    o.evidence!.some((e) =>
      /fabric pod liqo-fabric-q9c4x on NotReady node milan-worker-2 \(see ENV-07\)/.test(e)
    ),
  );
});

Deno.test("FAB-01: a crashing fabric pod on a Ready node cites its log", async () => {
  const { baseObjects, contextOf, inventoryOf, scriptedProbes, viewOf } = await import(
    "../../tests/support/fixtures.ts"
  );
  const objs = await baseObjects("rome");
  const pod = find(objs, "Pod", "liqo-fabric-t8w3z", "liqo");
  pod.status.conditions.find((c: { type: string }) => c.type === "Ready").status = "False";
  const cs = pod.status.containerStatuses[0];
  Object.assign(cs, {
    ready: false,
    restartCount: 3,
    state: { waiting: { reason: "CrashLoopBackOff" } },
    lastState: { terminated: { reason: "Error", exitCode: 1 } },
  });
  const probes = scriptedProbes({
    logs: (_c, ns, p, c, previous) => ({
      ok: true,
      namespace: ns,
      pod: p,
      container: c,
      previous,
      via: "api",
      matched: true,
      totalLines: 9,
      lines: [
        "E1130 02:20:00.000000       1 main.go:90] kernel version 5.4.0 does not satisfy the minimum requirements 5.10.0",
      ],
    }),
  });
  const o = await FAB_01.run(contextOf(viewOf(inventoryOf(objs)), { probes }));
  assert.equal(o.status, "fail");
  assert.match(
    o.summary,
    /rome-worker-2.*log: "kernel version 5\.4\.0 does not satisfy the minimum requirements 5\.10\.0"/,
  );
  assert.ok(o.evidence!.some((e) => /log of fabric \(previous instance, last 1 error line\)/.test(e)));
});
