import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import { baseObjects, find, type Loose } from "../../tests/support/fixtures.ts";
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
  assert.match(o.summary, /GKE Dataplane V2.*LoadBalancer Service demo\/web has offloaded endpoints/);
  assert.match(text(o), /pod web-7d9f6c8b5-8hq7n on virtual node milan-8d1f03/);
  assert.match(text(o), /Ingress controller's LoadBalancer/);
});

function ciliumKpr(objs: Loose[]) {
  objs.push({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cilium-config", namespace: "kube-system" },
    data: { "kube-proxy-replacement": "true", devices: "eth0" },
  });
}

Deno.test("ENV-06 Cilium kube-proxy replacement: warns on a NodePort with offloaded endpoints only", async () => {
  const objs = await baseObjects("rome");
  ciliumKpr(objs);
  let o = await run("ENV-06", objs);
  assert.equal(o.status, "pass");
  assert.match(text(o), /no NodePort\/LoadBalancer Service has offloaded endpoints/);
  find(objs, "Service", "web", "demo").spec.type = "NodePort";
  o = await run("ENV-06", objs);
  assert.equal(o.status, "warn");
  assert.match(
    o.summary,
    /Cilium with kube-proxy replacement.*NodePort Service demo\/web.*NodePortExposition/,
  );
  // the same NodePort with only local endpoints stays quiet
  const slice = find(objs, "EndpointSlice", "web-8k2lq", "demo");
  const endpoints = slice.endpoints as { nodeName: string }[];
  slice.endpoints = endpoints.filter((e) => e.nodeName !== "milan-8d1f03");
  assert.equal((await run("ENV-06", objs)).status, "pass");
});

Deno.test("ENV-06 AKS Azure CNI legacy limits NodePort exposure, not LoadBalancer", async () => {
  const objs = await baseObjects("rome");
  for (const n of objs.filter((o) => o.kind === "Node")) {
    n.metadata.labels = { ...n.metadata.labels, "kubernetes.azure.com/network-plugin": "azure" };
  }
  find(objs, "Service", "web", "demo").spec.type = "LoadBalancer";
  assert.equal((await run("ENV-06", objs)).status, "pass");
  find(objs, "Service", "web", "demo").spec.type = "NodePort";
  const o = await run("ENV-06", objs);
  assert.equal(o.status, "warn");
  assert.match(o.summary, /AKS with Azure CNI \(legacy\)/);
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
