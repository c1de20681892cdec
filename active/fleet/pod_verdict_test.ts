import assert from "node:assert/strict";
import type { K8sObject } from "../../kube/source.ts";
import { describeFailures, podVerdict } from "./pod_verdict.ts";

function pod(status: Record<string, unknown>, nodeName?: string): K8sObject {
  return { metadata: { name: "ff-probe-n1" }, spec: nodeName ? { nodeName } : {}, status };
}

const IMAGE = "registry.k8s.io/e2e-test-images/agnhost:2.56@sha256:" + "0".repeat(64);

Deno.test("podVerdict: Ready with an IP is ready; the node comes from spec.nodeName", () => {
  const v = podVerdict(
    pod({ phase: "Running", podIP: "10.244.1.5", conditions: [{ type: "Ready", status: "True" }] }, "n1"),
  );
  assert.deepEqual(v, { state: "ready", podIP: "10.244.1.5", node: "n1" });
});

Deno.test("podVerdict: Unschedulable, image pull and config errors, and failed pods fail for good", () => {
  const unsched = podVerdict(pod({
    phase: "Pending",
    conditions: [{
      type: "PodScheduled",
      status: "False",
      reason: "Unschedulable",
      message: "0/3 nodes are available: 1 Too many pods.",
    }],
  }));
  assert.deepEqual(unsched, {
    state: "failed",
    reason: "Unschedulable",
    message: "0/3 nodes are available: 1 Too many pods.",
  });
  for (
    const reason of ["ErrImagePull", "ImagePullBackOff", "InvalidImageName", "CreateContainerConfigError"]
  ) {
    const v = podVerdict(pod({
      phase: "Pending",
      containerStatuses: [{
        name: "probe",
        image: IMAGE,
        state: { waiting: { reason, message: `m-${reason}` } },
      }],
    }, "n1"));
    assert.deepEqual(v, { state: "failed", reason, message: `m-${reason}` });
  }
  const failed = podVerdict(pod({
    phase: "Failed",
    containerStatuses: [{
      name: "probe",
      state: { terminated: { reason: "Error", exitCode: 1, message: "bind: permission denied" } },
    }],
  }, "n1"));
  assert.deepEqual(failed, {
    state: "failed",
    reason: "Failed",
    message: "Error, exit code 1, bind: permission denied",
  });
  const evicted = podVerdict(
    pod({ phase: "Failed", reason: "Evicted", message: "The node was low on resource: memory." }),
  );
  assert.equal(
    evicted.state === "failed" && evicted.message,
    "Evicted: The node was low on resource: memory.",
  );
});

Deno.test("podVerdict: still on its way says where it is", () => {
  assert.deepEqual(podVerdict(pod({ phase: "Pending" })), { state: "pending", detail: "not scheduled yet" });
  assert.deepEqual(
    podVerdict(pod({
      phase: "Pending",
      containerStatuses: [{ name: "probe", state: { waiting: { reason: "ContainerCreating" } } }],
    }, "n1")),
    { state: "pending", detail: "Pending, ContainerCreating, no pod IP yet" },
  );
  assert.deepEqual(
    podVerdict(
      pod({ phase: "Running", podIP: "10.0.0.1", conditions: [{ type: "Ready", status: "False" }] }, "n1"),
    ),
    { state: "pending", detail: "Running, not Ready" },
  );
});

Deno.test("describeFailures groups image failures by image, naming every pod and node", () => {
  const mk = (name: string, node: string, reason: string) => ({
    pod: { side: "local" as const, execSide: "local" as const, name, node, image: IMAGE, offloaded: false },
    cluster: "rome",
    reason,
    message: `Failed to pull image "${IMAGE}": not found`,
  });
  const text = describeFailures([
    mk("ff-probe-a", "a", "ErrImagePull"),
    mk("ff-probe-b", "b", "ImagePullBackOff"),
    { ...mk("ff-probe-c", "c", "Unschedulable"), message: "0/3 nodes are available" },
  ]);
  assert.equal(
    text,
    `probe image ${IMAGE} cannot be pulled in rome: ErrImagePull/ImagePullBackOff on pod ff-probe-a (node a), ` +
      `pod ff-probe-b (node b): Failed to pull image "${IMAGE}": not found; ` +
      `probe pod ff-probe-c for node c in rome (image ${IMAGE}): Unschedulable: 0/3 nodes are available`,
  );
});
