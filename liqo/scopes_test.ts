import assert from "node:assert/strict";
import { Inventory } from "../kube/inventory.ts";
import type { K8sObject } from "../kube/source.ts";
import { resolveScope } from "./scopes.ts";
import { Objects } from "./views/mod.ts";

const obj = (kind: string, name: string, namespace?: string, labels?: Record<string, string>, extra = {}) =>
  ({
    kind,
    metadata: { name, ...(namespace ? { namespace } : {}), ...(labels ? { labels } : {}) },
    ...extra,
  }) as K8sObject;

const CM = obj("Deployment", "liqo-controller-manager", "liqo-system", {
  "app.kubernetes.io/name": "controller-manager",
  "app.kubernetes.io/component": "controller-manager",
});

function objects(extra: Partial<Record<string, K8sObject[]>> = {}, errors = {}): Objects {
  return new Objects(Inventory.fromLists({
    deployments: [CM],
    daemonsets: [obj("DaemonSet", "cilium", "cilium-system")],
    namespaces: [
      obj("Namespace", "liqo-tenant-a", undefined, {
        "liqo.io/tenant-namespace": "true",
        "liqo.io/remote-cluster-id": "a",
      }),
      obj("Namespace", "default"),
    ],
    foreignclusters: [
      obj("ForeignCluster", "b", undefined, {}, {
        spec: { clusterID: "b" },
        status: { tenantNamespace: { local: "liqo-tenant-b" } },
      }),
    ],
    gatewayservers: [obj("GatewayServer", "c", "liqo-tenant-c")],
    gatewayclients: [],
    virtualnodes: [],
    nodes: [
      obj("Node", "worker-1"),
      obj("Node", "vk-b", undefined, { "liqo.io/type": "virtual-node" }),
    ],
    ...extra,
  }, errors));
}

Deno.test("scopes: the Liqo namespace, every tenant namespace, the virtual nodes, the CNI namespaces", () => {
  const inv = objects();
  assert.deepEqual(resolveScope("liqo", inv), { everywhere: false, scopes: [{ namespace: "liqo-system" }] });
  assert.deepEqual(resolveScope("tenants", inv), {
    everywhere: false,
    scopes: [{ namespace: "liqo-tenant-a" }, { namespace: "liqo-tenant-b" }, { namespace: "liqo-tenant-c" }],
  });
  assert.deepEqual(resolveScope("virtual-nodes", inv), {
    everywhere: false,
    scopes: [{ fieldSelector: "spec.nodeName=vk-b" }],
  });
  assert.deepEqual(resolveScope("cni", inv), {
    everywhere: false,
    scopes: [{ namespace: "cilium-system" }, { namespace: "kube-system" }],
  });
  assert.deepEqual(resolveScope("gateways", inv), {
    everywhere: false,
    scopes: [{ labelSelector: "networking.liqo.io/component=gateway" }],
  });
  assert.deepEqual(resolveScope("cluster", inv), { everywhere: true });
});

Deno.test("scopes: an unreadable input means everywhere (slower, never less true); no Liqo means nowhere", () => {
  const refused = objects({}, { foreignclusters: { reason: "forbidden", message: "no" } });
  assert.deepEqual(resolveScope("tenants", refused), { everywhere: true, why: "foreignclusters unreadable" });
  const noLiqo = objects({ deployments: [], namespaces: [] });
  assert.deepEqual(resolveScope("liqo", noLiqo), { everywhere: false, scopes: [] });
  // The controller-manager gone, the namespace called liqo still holds Liqo's pods.
  const broken = objects({ deployments: [], namespaces: [obj("Namespace", "liqo")] });
  assert.deepEqual(resolveScope("liqo", broken), { everywhere: false, scopes: [{ namespace: "liqo" }] });
});
