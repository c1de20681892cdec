import assert from "node:assert/strict";
import { cloneWorker } from "./run.ts";
import { baseObjects } from "../../tests/support/fixtures.ts";
import type { K8sObject } from "../../kube/source.ts";

Deno.test("bench:active: a third worker is cloned from worker-2 with its own pod CIDR, pods left out", async () => {
  const objs = await baseObjects("rome") as K8sObject[];
  const clones = cloneWorker(objs, "rome-worker-2", "rome-worker-3", "10.244.3.0/24");
  const node = clones.find((o) => o.kind === "Node") as K8sObject & { spec: { podCIDR: string } };
  assert.equal(node.metadata.name, "rome-worker-3");
  assert.equal(node.metadata.labels?.["kubernetes.io/hostname"], "rome-worker-3");
  assert.equal(node.spec.podCIDR, "10.244.3.0/24");
  assert.ok(clones.some((o) => o.kind === "InternalNode" && o.metadata.name === "rome-worker-3"));
  assert.ok(clones.every((o) => o.kind !== "Pod" && !JSON.stringify(o).includes("rome-worker-2")));
});
