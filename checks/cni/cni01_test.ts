import { fixText } from "../../report/remediation.ts";
import assert from "node:assert/strict";
import { runOnBase } from "../../tests/support/fixtures.ts";
import type { K8sObject } from "../../kube/source.ts";
import { CNI_01 } from "./cni01.ts";

const run = (id: string, cluster: "rome" | "milan", mutate?: (o: K8sObject[]) => K8sObject[] | void) =>
  runOnBase([CNI_01], id, cluster, mutate);

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

Deno.test("CNI-01: Calico first-found / unset warn, skip-interface=liqo.* passes", async () => {
  for (const env of [[{ name: "IP_AUTODETECTION_METHOD", value: "first-found" }], []]) {
    const o = await run(
      "CNI-01",
      "rome",
      (objs) => [...noFlannel(objs), daemonSet("calico-node", "kube-system", env)],
    );
    assert.equal(o.status, "warn");
    assert.match(fixText(o.remediation), /skip-interface=liqo\.\*/);
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
  assert.match(fixText(op.remediation), /nodeAddressAutodetectionV4/);
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
  assert.match(fixText(o.remediation), /gatewayMasqueradeBypass=true/);
  o = await run("CNI-01", "rome", (objs) => [...noFlannel(objs), daemonSet("aws-node", "kube-system")]);
  assert.match(fixText(o.remediation), /routeConfigurationRulePriority/);
});
