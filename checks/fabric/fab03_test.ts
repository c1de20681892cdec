import assert from "node:assert/strict";
import { runOnBase } from "../../tests/support/fixtures.ts";
import type { K8sObject } from "../../kube/source.ts";
import { FAB_03 } from "./fab03.ts";

const run = (id: string, cluster: "rome" | "milan", mutate?: (o: K8sObject[]) => K8sObject[] | void) =>
  runOnBase([FAB_03], id, cluster, mutate);

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
