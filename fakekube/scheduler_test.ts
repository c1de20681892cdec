import assert from "node:assert/strict";
import type { K8sObject } from "./object.ts";
import { filterNode, schedulePod } from "./scheduler.ts";

function node(
  name: string,
  extra: { labels?: Record<string, string>; taints?: unknown[]; unschedulable?: boolean } = {},
): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels: { "kubernetes.io/hostname": name, ...extra.labels } },
    spec: {
      ...(extra.taints ? { taints: extra.taints } : {}),
      ...(extra.unschedulable ? { unschedulable: true } : {}),
    },
  };
}

const CP = node("rome-cp-1", {
  labels: { "node-role.kubernetes.io/control-plane": "" },
  taints: [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }],
});
const W1 = node("rome-worker-1", { labels: { zone: "a" } });
const W2 = node("rome-worker-2", { labels: { zone: "b" } });
const W3 = node("rome-worker-3", { labels: { zone: "b" } });
const VN = node("liqo-milan", {
  labels: { "liqo.io/type": "virtual-node", "liqo.io/remote-cluster-id": "milan-8d1f03" },
  taints: [{ key: "virtual-node.liqo.io/not-allowed", value: "true", effect: "NoExecute" }],
});

function pod(spec: Record<string, unknown> = {}): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "ns" },
    spec: { containers: [{ name: "probe", image: "agnhost" }], ...spec },
  };
}

const onHost = (...hosts: string[]) => ({
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{
          matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: hosts }],
        }],
      },
    },
  },
});

Deno.test("scheduler: required nodeAffinity on the hostname places the pod there", () => {
  assert.deepEqual(schedulePod(pod(onHost("rome-worker-2")), [CP, W1, W2, W3]), { node: "rome-worker-2" });
});

Deno.test("scheduler: an affinity to an untolerated tainted node is Unschedulable with the real FitError message", () => {
  const r = schedulePod(pod(onHost("rome-cp-1")), [CP, W1, W2, W3]);
  assert.deepEqual(r, {
    node: null,
    message:
      "0/4 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, " +
      "3 node(s) didn't match Pod's node affinity/selector. preemption: 0/4 nodes are available: " +
      "4 Preemption is not helpful for scheduling.",
  });
});

Deno.test("scheduler: a toleration (--tolerate) lets the pod onto the control plane", () => {
  const p = pod({
    ...onHost("rome-cp-1"),
    tolerations: [{ key: "node-role.kubernetes.io/control-plane", operator: "Exists" }],
  });
  assert.deepEqual(schedulePod(p, [CP, W1, W2, W3]), { node: "rome-cp-1" });
});

Deno.test("scheduler: NotIn / Exists / DoesNotExist / nodeSelector", () => {
  const expr = (e: Record<string, unknown>) =>
    pod({
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [e] }] },
        },
      },
    });
  const nodes = [W1, W2, W3];
  const fits = (p: K8sObject) => nodes.filter((n) => filterNode(p, n) === null).map((n) => n.metadata.name);
  assert.deepEqual(fits(expr({ key: "zone", operator: "NotIn", values: ["b"] })), ["rome-worker-1"]);
  assert.deepEqual(fits(expr({ key: "zone", operator: "Exists" })), [
    "rome-worker-1",
    "rome-worker-2",
    "rome-worker-3",
  ]);
  assert.deepEqual(fits(expr({ key: "zone", operator: "DoesNotExist" })), []);
  assert.deepEqual(fits(pod({ nodeSelector: { zone: "b" } })), ["rome-worker-2", "rome-worker-3"]);
  // matchFields on metadata.name, and the OR of terms.
  const p = pod({
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [
            { matchFields: [{ key: "metadata.name", operator: "In", values: ["rome-worker-3"] }] },
            { matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] },
          ],
        },
      },
    },
  });
  assert.deepEqual(fits(p), ["rome-worker-1", "rome-worker-3"]);
});

Deno.test("scheduler: cordoned, full (lifecycle.unschedulable) and virtual nodes", () => {
  const cordoned = node("rome-worker-1", { unschedulable: true });
  const r = schedulePod(pod(), [CP, cordoned, W2, VN], { unschedulable: ["rome-worker-2"] });
  assert.deepEqual(r, {
    node: null,
    message: "0/4 nodes are available: 1 Too many pods, 1 node(s) had untolerated taint " +
      "{node-role.kubernetes.io/control-plane: }, 1 node(s) had untolerated taint {virtual-node.liqo.io/not-allowed: true}, " +
      "1 node(s) were unschedulable. preemption: 0/4 nodes are available: 1 No preemption victims found for " +
      "incoming pod, 3 Preemption is not helpful for scheduling.",
  });
  // Liqo's webhook toleration lets an offloaded pod onto the virtual node.
  const offloaded = pod({
    ...onHost("liqo-milan"),
    tolerations: [{ key: "virtual-node.liqo.io/not-allowed", operator: "Exists", effect: "NoExecute" }],
  });
  assert.deepEqual(schedulePod(offloaded, [CP, W2, VN]), { node: "liqo-milan" });
});

Deno.test("scheduler: the least loaded feasible node wins", () => {
  const load = new Map([["rome-worker-1", 3], ["rome-worker-2", 1], ["rome-worker-3", 1]]);
  assert.deepEqual(schedulePod(pod(), [CP, W1, W2, W3], { load: (n) => load.get(n) ?? 0 }), {
    node: "rome-worker-2",
  });
  const none = schedulePod(pod(), []);
  assert(none.node === null && none.message === "no nodes available to schedule pods");
});

Deno.test("scheduler: a NotReady node carries the not-ready taint even when the scenario only set the condition", () => {
  const notReady: K8sObject = { ...W1, status: { conditions: [{ type: "Ready", status: "False" }] } };
  assert.equal(filterNode(pod(), notReady), "node(s) had untolerated taint {node.kubernetes.io/not-ready: }");
  const unknown: K8sObject = { ...W1, status: { conditions: [{ type: "Ready", status: "Unknown" }] } };
  assert.equal(
    filterNode(pod(), unknown),
    "node(s) had untolerated taint {node.kubernetes.io/unreachable: }",
  );
  assert.equal(filterNode(pod(), W1), null);
});
