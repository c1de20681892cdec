import assert from "node:assert/strict";
import { find, runOnBase } from "../tests/support/fixtures.ts";
import type { K8sObject } from "../kube/source.ts";
import { FABRIC_CHECKS, tolerates } from "./fabric.ts";

const run = (id: string, cluster: "rome" | "milan", mutate?: (o: K8sObject[]) => K8sObject[] | void) =>
  runOnBase(FABRIC_CHECKS, id, cluster, mutate);

const without = (objs: K8sObject[], kind: string, name: string) =>
  objs.filter((o) => !(o.kind === kind && o.metadata.name === name));

Deno.test("FAB: healthy base passes on both clusters", async () => {
  for (const c of ["rome", "milan"] as const) {
    for (const d of FABRIC_CHECKS) assert.equal((await run(d.id, c)).status, "pass", `${d.id} on ${c}`);
  }
});

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
  assert.match(o.remediation!, /kubectl taint nodes rome-worker-2 dedicated=gpu:NoSchedule-/);
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
  assert.match(o.remediation!, /logs liqo-fabric-m4q9d --previous/);
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

const policy = (ingress?: unknown[]): K8sObject => ({
  apiVersion: "networking.k8s.io/v1",
  kind: "NetworkPolicy",
  metadata: { name: "np", namespace: "liqo-tenant-milan-8d1f03" },
  spec: {
    podSelector: { matchLabels: { "networking.liqo.io/component": "gateway" } },
    policyTypes: ["Ingress"],
    ...(ingress ? { ingress } : {}),
  },
});

Deno.test("FAB-03: deny-all fails, selector-only warns, node ipBlock passes", async () => {
  let o = await run("FAB-03", "rome", (objs) => [...objs, policy()]);
  assert.equal(o.status, "fail");
  o = await run("FAB-03", "rome", (objs) => [...objs, policy([{ from: [{ podSelector: {} }] }])]);
  assert.equal(o.status, "warn");
  o = await run("FAB-03", "rome", (objs) => [
    ...objs,
    policy([{
      from: [{ ipBlock: { cidr: "192.168.10.0/24" } }, { ipBlock: { cidr: "10.244.0.0/16" } }],
      ports: [{ protocol: "UDP", port: 6091 }],
    }]),
  ]);
  assert.equal(o.status, "pass");
  o = await run("FAB-03", "rome", (objs) => [
    ...objs,
    policy([{ from: [{ ipBlock: { cidr: "0.0.0.0/0" } }], ports: [{ protocol: "TCP", port: 6091 }] }]),
  ]);
  assert.equal(o.status, "warn");
});

Deno.test("FAB-04: Applied=False fails with the gateway log command", async () => {
  const o = await run("FAB-04", "rome", (objs) => {
    find(objs, "FirewallConfiguration", "milan-8d1f03-remap-podcidr").status.conditions[0].status = "False";
  });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /milan-8d1f03-remap-podcidr.*Applied=False on gw-milan-8d1f03-7c9d5b6f8d-q4xzt/);
  assert.match(
    o.remediation!,
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
  assert.match(o.remediation!, /-n liqo logs liqo-fabric-m4q9d/);
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
