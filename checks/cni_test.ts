import assert from "node:assert/strict";
import { find, runOnBase } from "../tests/support/fixtures.ts";
import type { K8sObject } from "../kube/source.ts";
import { CNI_CHECKS } from "./cni.ts";
import { ruleAdmitsPort, ruleAdmitsSource, selectorMatches } from "../liqo/policies.ts";

const run = (id: string, cluster: "rome" | "milan", mutate?: (o: K8sObject[]) => K8sObject[] | void) =>
  runOnBase(CNI_CHECKS, id, cluster, mutate);

const noFlannel = (objs: K8sObject[]) =>
  objs.filter((o) => !(o.kind === "DaemonSet" && o.metadata.name === "kube-flannel-ds"));

function daemonSet(name: string, ns: string, env: { name: string; value: string }[] = []): K8sObject {
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name, namespace: ns, labels: { "k8s-app": name } },
    spec: { template: { spec: { containers: [{ name, image: "x", env }] } } },
  };
}

Deno.test("CNI: healthy base passes on both clusters", async () => {
  for (const c of ["rome", "milan"] as const) {
    for (const d of CNI_CHECKS) assert.equal((await run(d.id, c)).status, "pass", `${d.id} on ${c}`);
  }
});

Deno.test("CNI-01: Calico first-found / unset warn, skip-interface=liqo.* passes", async () => {
  for (const env of [[{ name: "IP_AUTODETECTION_METHOD", value: "first-found" }], []]) {
    const o = await run(
      "CNI-01",
      "rome",
      (objs) => [...noFlannel(objs), daemonSet("calico-node", "kube-system", env)],
    );
    assert.equal(o.status, "warn");
    assert.match(o.remediation!, /skip-interface=liqo\.\*/);
  }
  const ok = await run("CNI-01", "rome", (objs) => [
    ...noFlannel(objs),
    daemonSet("calico-node", "kube-system", [{
      name: "IP_AUTODETECTION_METHOD",
      value: "skip-interface=liqo.*",
    }]),
  ]);
  assert.equal(ok.status, "pass");
  const op = await run(
    "CNI-01",
    "rome",
    (objs) => [...noFlannel(objs), daemonSet("calico-node", "calico-system")],
  );
  assert.match(op.remediation!, /nodeAddressAutodetectionV4/);
});

Deno.test("CNI-01: Cilium KPR without devices warns; with devices passes", async () => {
  const cm = (data: Record<string, string>): K8sObject => ({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cilium-config", namespace: "kube-system" },
    data,
  });
  let o = await run("CNI-01", "rome", (objs) => [
    ...noFlannel(objs),
    daemonSet("cilium", "kube-system"),
    cm({ "kube-proxy-replacement": "true" }),
  ]);
  assert.equal(o.status, "warn");
  assert.match(o.summary, /kube-proxy-replacement=true/);
  o = await run("CNI-01", "rome", (objs) => [
    ...noFlannel(objs),
    daemonSet("cilium", "kube-system"),
    cm({ "kube-proxy-replacement": "true", devices: "eth0" }),
  ]);
  assert.equal(o.status, "pass");
});

Deno.test("CNI-01: unknown CNI warns listing raw DaemonSets; Kindnet needs masquerade bypass", async () => {
  let o = await run("CNI-01", "rome", (objs) => [...noFlannel(objs), daemonSet("acme-agent", "kube-system")]);
  assert.equal(o.status, "warn");
  assert.ok(o.evidence!.some((e) => e.includes("acme-agent") && e.includes("kube-proxy")));
  o = await run("CNI-01", "rome", (objs) => [...noFlannel(objs), daemonSet("kindnet", "kube-system")]);
  assert.equal(o.status, "warn");
  assert.match(o.remediation!, /gatewayMasqueradeBypass=true/);
  o = await run("CNI-01", "rome", (objs) => [...noFlannel(objs), daemonSet("aws-node", "kube-system")]);
  assert.match(o.remediation!, /routeConfigurationRulePriority/);
});

Deno.test("selector and rule helpers", () => {
  assert.ok(selectorMatches({}, { a: "b" }));
  assert.ok(selectorMatches({ matchExpressions: [{ key: "a", operator: "In", values: ["b"] }] }, { a: "b" }));
  assert.ok(!selectorMatches({ matchExpressions: [{ key: "a", operator: "DoesNotExist" }] }, { a: "b" }));
  assert.ok(ruleAdmitsSource({ from: [{ ipBlock: { cidr: "10.0.0.0/8" } }] }, "10.71.0.0/16"));
  assert.ok(
    !ruleAdmitsSource(
      { from: [{ ipBlock: { cidr: "10.0.0.0/8", except: ["10.71.0.0/16"] } }] },
      "10.71.0.0/16",
    ),
  );
  assert.ok(!ruleAdmitsSource({ from: [{ podSelector: {} }] }, "10.71.0.0/16"));
  assert.ok(ruleAdmitsPort({ ports: [{ protocol: "UDP", port: 6000, endPort: 7000 }] }, "UDP", 6091));
  assert.ok(!ruleAdmitsPort({ ports: [{ port: 6091 }] }, "UDP", 6091));
});

Deno.test("CNI-02: podSelector-only policy in an offloaded namespace warns; ipBlock policy passes", async () => {
  const np = (ingress: unknown[]): K8sObject => ({
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: "np", namespace: "demo" },
    spec: { podSelector: {}, policyTypes: ["Ingress"], ingress },
  });
  let o = await run("CNI-02", "rome", (objs) => [...objs, np([{ from: [{ podSelector: {} }] }])]);
  assert.equal(o.status, "warn");
  assert.ok(o.evidence!.some((e) => e.includes("demo/np") && e.includes("10.71.0.0/16")));
  o = await run(
    "CNI-02",
    "rome",
    (objs) => [...objs, np([{ from: [{ podSelector: {} }, { ipBlock: { cidr: "10.71.0.0/16" } }] }])],
  );
  assert.equal(o.status, "pass");
  // provider side: the namespace Liqo created for rome
  o = await run(
    "CNI-02",
    "milan",
    (
      objs,
    ) => [...objs, {
      ...np([{ from: [{ namespaceSelector: {} }] }]),
      metadata: { name: "np", namespace: "demo-rome-4b2a9e" },
    }],
  );
  assert.equal(o.status, "warn");
  // gateway server pod: policy not admitting the WireGuard port
  o = await run("CNI-02", "milan", (objs) => {
    find(objs, "Configuration", "rome-4b2a9e");
    return [...objs, {
      ...np([{ ports: [{ protocol: "TCP", port: 443 }] }]),
      metadata: { name: "gw", namespace: "liqo-tenant-rome-4b2a9e" },
    }];
  });
  assert.equal(o.status, "warn");
  assert.ok(o.evidence!.some((e) => e.includes("UDP 51840")));
});
