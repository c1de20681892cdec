import assert from "node:assert/strict";
import type { K8sObject } from "../../kube/source.ts";
import { explainBackOff, offloadingVerdict } from "./fleet.ts";
import { describeFailures } from "./pod_verdict.ts";
import type { ProbeTarget } from "./target.ts";

const IMAGE = "registry.k8s.io/e2e-test-images/agnhost:2.56@sha256:" + "0".repeat(64);

Deno.test("offloadingVerdict: Ready, in progress, and failed phases with the per-cluster conditions", () => {
  const no = (status: unknown): K8sObject => ({ metadata: { name: "offloading" }, status });
  assert.equal(offloadingVerdict(no({ offloadingPhase: "Ready" }), "milan"), true);
  assert.equal(offloadingVerdict(no({ offloadingPhase: "InProgress" }), "milan"), false);
  assert.equal(offloadingVerdict(null, "milan"), false);
  assert.equal(
    offloadingVerdict(
      no({
        offloadingPhase: "AllFailed",
        remoteNamespacesConditions: {
          milan: [
            { type: "OffloadingRequired", status: "True", reason: "ClusterSelected" },
            {
              type: "Ready",
              status: "False",
              reason: "CreationLoopBackOff",
              message: "namespace already exists",
            },
          ],
        },
      }),
      "milan",
    ),
    "NamespaceOffloading phase AllFailed: milan: Ready=False (CreationLoopBackOff): namespace already exists",
  );
  assert.match(
    String(offloadingVerdict(no({ offloadingPhase: "NoClusterSelected" }), "milan")),
    /NoClusterSelected \(no virtual node with liqo.io\/remote-cluster-id=milan/,
  );
});

Deno.test("explainBackOff adds the kubelet's pull error from the pod's events to a bare back-off", async () => {
  const failure = {
    pod: {
      side: "local" as const,
      execSide: "local" as const,
      name: "ff-probe-a",
      node: "a",
      image: IMAGE,
      offloaded: false,
    },
    cluster: "rome",
    reason: "ImagePullBackOff",
    message: `Back-off pulling image "${IMAGE}"`,
  };
  const asked: string[] = [];
  const ev = (message: string, at: string) => ({
    reason: "Failed",
    involvedObject: { kind: "Pod", name: "ff-probe-a" },
    message,
    lastTimestamp: at,
  });
  const target = {
    client: {
      getJson: (path: string) => {
        asked.push(path);
        return Promise.resolve({
          items: [
            ev(`Failed to pull image "${IMAGE}": 403 Forbidden`, "2026-12-01T10:00:00Z"),
            ev("Error: ErrImagePull", "2026-12-01T10:00:01Z"),
            ev(`Failed to pull image "${IMAGE}": dial tcp: i/o timeout`, "2026-12-01T10:00:05Z"),
            ev("Error: ImagePullBackOff", "2026-12-01T10:00:06Z"),
          ],
        });
      },
    },
  } as unknown as ProbeTarget;
  await explainBackOff(target, "ab12cd34", [failure]);
  assert.deepEqual(asked, [
    "/api/v1/namespaces/flyingfish-probe-ab12cd34/events?fieldSelector=involvedObject.name%3Dff-probe-a",
  ]);
  assert.equal(
    failure.message,
    `Back-off pulling image "${IMAGE}" (kubelet: Failed to pull image "${IMAGE}": dial tcp: i/o timeout)`,
  );
  assert.match(
    describeFailures([failure]),
    /cannot be pulled in rome: ImagePullBackOff \(after ErrImagePull\) on pod ff-probe-a/,
  );

  // No permission to read events: the back-off message stays, nothing throws.
  const denied = { ...failure, message: `Back-off pulling image "${IMAGE}"` };
  const refusing = { client: { getJson: () => Promise.reject(new Error("403")) } } as unknown as ProbeTarget;
  await explainBackOff(refusing, "ab12cd34", [denied]);
  assert.equal(denied.message, `Back-off pulling image "${IMAGE}"`);
});
