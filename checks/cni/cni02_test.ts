import assert from "node:assert/strict";
import { find, runOnBase } from "../../tests/support/fixtures.ts";
import type { K8sObject } from "../../kube/source.ts";
import { CNI_02 } from "./cni02.ts";

const run = (id: string, cluster: "rome" | "milan", mutate?: (o: K8sObject[]) => K8sObject[] | void) =>
  runOnBase([CNI_02], id, cluster, mutate);

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
