import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import { baseObjects, find } from "../../tests/support/fixtures.ts";
import { ENV_01 } from "./env01.ts";
import { crashLoop, loseNode, runner, setCm, text } from "../../tests/support/env_checks.ts";

const run = runner([ENV_01]);

Deno.test("ENV-01 passes on both healthy bases", async () => {
  for (const c of ["rome", "milan"] as const) {
    const o = await run("ENV-01", await baseObjects(c));
    assert.equal(o.status, "pass", o.summary);
    assert.match(o.summary, /7 Liqo components healthy in namespace liqo \(v1\.2\.0\)/);
  }
});

Deno.test("ENV-01 fails with an install hint when Liqo is absent", async () => {
  const objs = (await baseObjects("rome")).filter((o) =>
    o.kind === "Node" || o.metadata.namespace === "kube-system"
  );
  const o = await run("ENV-01", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /Liqo is not installed/);
  assert.match(fixText(o.remediation), /liqoctl install/);
});

Deno.test("ENV-01 reports a partial install without controller-manager", async () => {
  const objs = (await baseObjects("rome")).filter((o) => o.metadata.name !== "liqo-controller-manager");
  const o = await run("ENV-01", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /controller-manager Deployment is missing in namespace liqo/);
});

Deno.test("ENV-01 lists a crash-looping ipam with ready/desired, restarts and last termination", async () => {
  const objs = await baseObjects("rome");
  find(objs, "Deployment", "liqo-ipam", "liqo").status.readyReplicas = 0;
  crashLoop(find(objs, "Pod", "liqo-ipam-7f9b8c6d54-tq8wn", "liqo"), "failed to initialize the IPAM");
  const o = await run("ENV-01", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /liqo-ipam/);
  const t = text(o);
  assert.match(t, /liqo\/liqo-ipam \(Deployment\): 0\/1 ready, 9 restarts/);
  assert.match(t, /CrashLoopBackOff/);
  assert.match(t, /Error \(exit 1\): failed to initialize the IPAM/);
  assert.match(fixText(o.remediation), /kubectl -n liqo logs liqo-ipam-7f9b8c6d54-tq8wn -c ipam --previous/);
});

Deno.test("ENV-01 judges the fabric DaemonSet by ready/desired", async () => {
  const objs = await baseObjects("rome");
  find(objs, "DaemonSet", "liqo-fabric", "liqo").status.numberReady = 2;
  const o = await run("ENV-01", objs);
  assert.equal(o.status, "fail");
  assert.match(text(o), /liqo\/liqo-fabric \(DaemonSet\): 2\/3 ready/);
});

Deno.test("ENV-01 does not expect ipam/fabric with networking disabled, nor ipam with external IPAM", async () => {
  let objs = (await baseObjects("rome")).filter((o) =>
    !["liqo-ipam", "liqo-fabric"].includes(o.metadata.name) &&
    !o.metadata.name.startsWith("liqo-ipam-") && !o.metadata.name.startsWith("liqo-fabric-")
  );
  setCm(objs, (a) => a.map((x) => x === "--networking-enabled=true" ? "--networking-enabled=false" : x));
  let o = await run("ENV-01", objs);
  assert.equal(o.status, "pass", text(o));
  assert.match(text(o), /liqo-ipam not present: networking disabled/);

  objs = (await baseObjects("rome")).filter((o) => o.metadata.name !== "liqo-ipam");
  setCm(objs, (a) => a.map((x) => x.startsWith("--ipam-server=") ? "--ipam-server=ipam.infra.svc:6000" : x));
  o = await run("ENV-01", objs);
  assert.equal(o.status, "pass", text(o));
  assert.match(text(o), /external IPAM/);
});

Deno.test("ENV-01 fails on a missing required component and tolerates a missing optional one", async () => {
  const objs = (await baseObjects("rome")).filter((o) =>
    o.metadata.name !== "liqo-webhook" && o.metadata.name !== "liqo-metric-agent"
  );
  const o = await run("ENV-01", objs);
  assert.equal(o.status, "fail");
  assert.match(text(o), /liqo-webhook \(Deployment\): missing/);
  assert.doesNotMatch(o.summary, /metric-agent/);
});

Deno.test("ENV-01 survives workloads without status", async () => {
  const objs = await baseObjects("milan");
  delete find(objs, "Deployment", "liqo-proxy", "liqo").status;
  delete find(objs, "DaemonSet", "liqo-fabric", "liqo").status;
  const o = await run("ENV-01", objs);
  assert.equal(o.status, "fail");
  assert.match(text(o), /liqo-proxy \(Deployment\): 0\/1 ready/);
  assert.match(text(o), /schedules no pod/);
});

Deno.test("ENV-01 says a shortfall on a lost node is that node's (see ENV-07) and only warns", async () => {
  const objs = await baseObjects("milan");
  loseNode(find(objs, "Node", "milan-worker-2"));
  for (const p of ["liqo-fabric-q9c4x", "liqo-webhook-9c5d7f8b6-z6qwc"]) {
    const ready = find(objs, "Pod", p, "liqo").status.conditions.find((c: { type: string }) =>
      c.type === "Ready"
    );
    ready.status = "False";
  }
  find(objs, "DaemonSet", "liqo-fabric", "liqo").status.numberReady = 2;
  find(objs, "Deployment", "liqo-webhook", "liqo").status.readyReplicas = 0;
  const o = await run("ENV-01", objs);
  assert.equal(o.status, "warn", o.summary);
  assert.match(o.summary, /liqo-webhook, liqo-fabric on NotReady node milan-worker-2 \(see ENV-07\)/);
  assert.match(text(o), /pod liqo-fabric-q9c4x on NotReady node milan-worker-2 \(see ENV-07\)/);
});

Deno.test("ENV-01 cites the crashing container's log line (previous instance) in its summary", async () => {
  const { contextOf, inventoryOf, scriptedProbes, viewOf } = await import("../../tests/support/fixtures.ts");
  const objs = await baseObjects("rome");
  find(objs, "Deployment", "liqo-ipam", "liqo").status.readyReplicas = 0;
  crashLoop(find(objs, "Pod", "liqo-ipam-7f9b8c6d54-tq8wn", "liqo"));
  const asked: string[] = [];
  const probes = scriptedProbes({
    logs: (_c, ns, pod, container, previous) => {
      asked.push(`${ns}/${pod}/${container} previous=${previous}`);
      return {
        ok: true,
        namespace: ns,
        pod,
        container,
        previous,
        via: "api",
        matched: true,
        totalLines: 4,
        lines: ["E1130 02:25:49.030118       1 main.go:201] failed to initialize the IPAM: pool exhausted"],
      };
    },
  });
  const o = await ENV_01.run(contextOf(viewOf(inventoryOf(objs)), { probes }));
  assert.equal(o.status, "fail");
  assert.deepEqual(asked, ["liqo/liqo-ipam-7f9b8c6d54-tq8wn/ipam previous=true"]);
  assert.match(o.summary, /liqo-ipam \(log: "failed to initialize the IPAM: pool exhausted"\)/);
  assert.match(text(o), /log of ipam \(previous instance, last 1 error line\):\n {6}E1130/);
});

Deno.test("ENV-01 says which permission is missing when the log is forbidden", async () => {
  const { contextOf, inventoryOf, scriptedProbes, viewOf } = await import("../../tests/support/fixtures.ts");
  const objs = await baseObjects("rome");
  find(objs, "Deployment", "liqo-ipam", "liqo").status.readyReplicas = 0;
  crashLoop(find(objs, "Pod", "liqo-ipam-7f9b8c6d54-tq8wn", "liqo"));
  const probes = scriptedProbes({
    logs: (_c, namespace, pod, container) => ({
      ok: false,
      namespace,
      pod,
      container,
      reason: "forbidden",
      message: "missing permission: get pods/log in namespace liqo",
    }),
  });
  const o = await ENV_01.run(contextOf(viewOf(inventoryOf(objs)), { probes }));
  assert.equal(o.status, "fail");
  assert.match(text(o), /log of ipam: not readable — missing permission: get pods\/log in namespace liqo/);
  assert.doesNotMatch(o.summary, /log:/);
});
