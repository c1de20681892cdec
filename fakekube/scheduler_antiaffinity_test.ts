import assert from "node:assert/strict";
import type { K8sObject } from "./object.ts";
import { schedulePod } from "./scheduler.ts";

const node = (name: string): K8sObject => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: { name, labels: { "kubernetes.io/hostname": name } },
  spec: {},
  status: { conditions: [{ type: "Ready", status: "True" }] },
});
const bound = (name: string, on: string, labels: Record<string, string>): K8sObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "ns", labels },
  spec: { nodeName: on },
});
const term = { labelSelector: { matchLabels: { run: "x" } }, topologyKey: "kubernetes.io/hostname" };
const incoming = (anti: Record<string, unknown>): K8sObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "new", namespace: "ns", labels: { run: "x" } },
  spec: { affinity: { podAntiAffinity: anti } },
});
const nodes = [node("a"), node("b")];
const load = (n: string) => (n === "a" ? 0 : 5);

Deno.test("scheduler: required pod anti-affinity on hostname keeps matching pods apart, and says so when it cannot", () => {
  const hard = incoming({ requiredDuringSchedulingIgnoredDuringExecution: [term] });
  const onA = [bound("p0", "a", { run: "x" })];
  assert.deepEqual(schedulePod(hard, nodes, { load, pods: onA }), { node: "b" });
  assert.deepEqual(schedulePod(hard, nodes, { load, pods: [bound("p0", "a", { run: "y" })] }), { node: "a" });
  const full = schedulePod(hard, nodes, { load, pods: [...onA, bound("p1", "b", { run: "x" })] });
  assert.equal(full.node, null);
  assert.match((full as { message: string }).message, /2 node\(s\) didn't match pod anti-affinity rules/);
});

Deno.test("scheduler: preferred pod anti-affinity outweighs load, but never makes a node infeasible", () => {
  const soft = incoming({
    preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: term }],
  });
  const onA = [bound("p0", "a", { run: "x" })];
  assert.deepEqual(schedulePod(soft, nodes, { load, pods: onA }), { node: "b" });
  assert.deepEqual(schedulePod(soft, nodes, { load, pods: onA, unschedulable: ["b"] }), { node: "a" });
});
