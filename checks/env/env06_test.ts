import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import { baseObjects, find } from "../../tests/support/fixtures.ts";
import { ENV_06 } from "./env06.ts";
import { runner, setCm, text } from "../../tests/support/env_checks.ts";

const run = runner([ENV_06]);

Deno.test("ENV-06 passes on a kubeadm base", async () => {
  for (const c of ["rome", "milan"] as const) {
    assert.equal((await run("ENV-06", await baseObjects(c))).status, "pass");
  }
});

Deno.test("ENV-06 warns on OpenShift with networking, passes with networking disabled", async () => {
  const objs = await baseObjects("milan");
  find(objs, "Node", "milan-worker-1").status.nodeInfo.osImage = "Red Hat Enterprise Linux CoreOS 417.94";
  let o = await run("ENV-06", objs);
  assert.equal(o.status, "warn");
  assert.match(fixText(o.remediation), /networking\.enabled=false/);
  setCm(objs, (a) => a.map((x) => x === "--networking-enabled=true" ? "--networking-enabled=false" : x));
  o = await run("ENV-06", objs);
  assert.equal(o.status, "pass");
});

Deno.test("ENV-06 K3s is informational", async () => {
  const objs = await baseObjects("rome");
  find(objs, "Node", "rome-cp-1").status.nodeInfo.kubeletVersion = "v1.31.4+k3s1";
  const o = await run("ENV-06", objs);
  assert.equal(o.status, "pass");
  assert.match(o.summary, /RemoteExec/);
});

Deno.test("ENV-06 GKE Dataplane V2 warns only with NodePort/LB Services in offloaded namespaces", async () => {
  const objs = await baseObjects("rome");
  for (const n of objs.filter((o) => o.kind === "Node")) {
    n.metadata.labels = { ...n.metadata.labels, "cloud.google.com/gke-nodepool": "default-pool" };
  }
  objs.push({
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: "anetd", namespace: "kube-system" },
  });
  assert.equal((await run("ENV-06", objs)).status, "pass");
  find(objs, "Service", "web", "demo").spec.type = "LoadBalancer";
  const o = await run("ENV-06", objs);
  assert.equal(o.status, "warn");
  assert.match(text(o), /Service demo\/web: LoadBalancer in an offloaded namespace/);
});

Deno.test("ENV-06 EKS notes offloaded namespaces (no warning) and warns on external IP remapping", async () => {
  const objs = await baseObjects("rome");
  find(objs, "Node", "rome-worker-1").metadata.labels!["eks.amazonaws.com/nodegroup"] = "ng-1";
  const o = await run("ENV-06", objs);
  assert.equal(o.status, "pass");
  assert.match(o.summary, /EKS: offloaded pods that call the home API server/);
  assert.match(text(o), /CrossClusterAPIServerInteraction/);
  objs.push({
    apiVersion: "ipam.liqo.io/v1alpha1",
    kind: "IP",
    metadata: { name: "external-db", namespace: "demo" },
    spec: { ip: "192.0.2.10" },
    status: { ip: "10.70.0.9", cidr: "10.70.0.0/16" },
  });
  const withIp = await run("ENV-06", objs);
  assert.equal(withIp.status, "warn");
  assert.match(withIp.summary, /ExternalIPRemapping/);
  const provider = await baseObjects("milan");
  find(provider, "Node", "milan-worker-1").metadata.labels!["eks.amazonaws.com/nodegroup"] = "ng-1";
  assert.equal((await run("ENV-06", provider)).status, "pass");
});
