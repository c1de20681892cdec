import assert from "node:assert/strict";
import { baseObjects, find, inventoryOf, viewOf } from "../tests/support/fixtures.ts";
import type { K8sObject } from "../kube/source.ts";
import { offloadedPodManifest } from "./fleet/templates.ts";
import type { ProbePod } from "./model.ts";
import {
  ANTI_AFFINITY_LABELS_ANNOTATION,
  ANTI_AFFINITY_PRESET_ANNOTATION,
  DEFAULT_OFFLOADED_PODS,
  offloadColumns,
  offloadingWanted,
  offloadSpread,
  peerVirtualNodes,
  placeOffloadedPods,
  planOffload,
  remoteNamespaceOf,
} from "./offload.ts";

const PEER = "milan-8d1f03";
const rome = async (mutate?: (o: K8sObject[]) => void) => {
  const objs = await baseObjects("rome");
  mutate?.(objs);
  return viewOf(inventoryOf(objs));
};

Deno.test("offloadingWanted: offload mode always, direct mode only for the service probe", () => {
  assert.equal(offloadingWanted("offload", ["matrix"]), true);
  assert.equal(offloadingWanted("direct", ["matrix", "udp", "mtu", "trace"]), false);
  assert.equal(offloadingWanted("direct", ["matrix", "service"]), true);
});

Deno.test("planOffload: provider nodes unknown → 2 pods, soft; known → one per node, hard; round-robin over virtual nodes", async () => {
  const view = await rome();
  assert.deepEqual(peerVirtualNodes(view, PEER), [{ name: PEER, ready: true, reason: "" }]);
  const unknown = planOffload(view, PEER, null);
  assert.ok(unknown.ok);
  assert.equal(unknown.plan.pods.length, DEFAULT_OFFLOADED_PODS);
  assert.equal(unknown.plan.preset, "soft");
  assert.match(
    unknown.plan.countReason,
    /provider nodes unknown without --remote-kubeconfig: 2 offloaded pods/,
  );
  const known = planOffload(view, PEER, ["milan-worker-1", "milan-worker-2", "milan-worker-3"]);
  assert.ok(known.ok);
  assert.deepEqual(known.plan.pods, [0, 1, 2].map((index) => ({ virtualNode: PEER, index, preset: "hard" })));

  // A second Ready virtual node of the same peer (two ResourceSlices): pods alternate.
  const two = await rome((objs) => {
    const vn = structuredClone(find(objs, "Node", PEER));
    vn.metadata.name = `${PEER}-b`;
    objs.push(vn);
  });
  const alt = planOffload(two, PEER, ["a", "b", "c"]);
  assert.ok(alt.ok);
  assert.deepEqual(alt.plan.pods.map((p) => p.virtualNode), [PEER, `${PEER}-b`, PEER]);
});

Deno.test("planOffload: no virtual node, or none Ready, says why", async () => {
  const none = planOffload(
    await rome((objs) => objs.splice(objs.indexOf(find(objs, "Node", PEER)), 1)),
    PEER,
    null,
  );
  assert.ok(!none.ok);
  assert.match(
    none.reason,
    /no virtual node for milan-8d1f03 on rome-4b2a9e: offload mode needs the peer to share resources/,
  );
  const notReady = planOffload(
    await rome((objs) => {
      const ready = find(objs, "Node", PEER).status.conditions.find((c: { type: string }) =>
        c.type === "Ready"
      );
      Object.assign(ready, { status: "False", reason: "KubeletNotReady" });
    }),
    PEER,
    null,
  );
  assert.ok(!notReady.ok);
  assert.match(
    notReady.reason,
    /no Ready virtual node for milan-8d1f03 on rome-4b2a9e: milan-8d1f03 Ready=False \(KubeletNotReady\)/,
  );
});

Deno.test("offloadSpread: Liqo's anti-affinity preset over the labels all offloaded pods share", () => {
  const pods = [0, 1].map((index) =>
    offloadedPodManifest({
      runId: "abcd1234",
      image: "img",
      virtualNode: PEER,
      index,
      spread: offloadSpread("hard"),
    })
  );
  for (const p of pods) {
    assert.equal(p.metadata.annotations?.[ANTI_AFFINITY_PRESET_ANNOTATION], "hard");
    assert.equal(
      p.metadata.annotations?.[ANTI_AFFINITY_LABELS_ANNOTATION],
      "flyingfish.io/run-id,app.kubernetes.io/component",
    );
  }
  // The keys Liqo selects on must carry the same value on every offloaded pod, else nothing spreads.
  const keys = pods[0].metadata.annotations![ANTI_AFFINITY_LABELS_ANNOTATION].split(",");
  for (const k of keys) {
    assert.ok(pods[0].metadata.labels?.[k], `label ${k} present`);
    assert.equal(pods[0].metadata.labels?.[k], pods[1].metadata.labels?.[k]);
  }
  assert.equal(offloadSpread("soft").annotations?.[ANTI_AFFINITY_PRESET_ANNOTATION], "soft");
});

Deno.test("remoteNamespaceOf: the status name, else Liqo's DefaultName, else unknown", () => {
  const ns = "flyingfish-probe-abcd1234";
  assert.equal(
    remoteNamespaceOf({ metadata: { name: "offloading" }, status: { remoteNamespaceName: "x" } }, ns, "rome"),
    "x",
  );
  assert.equal(remoteNamespaceOf(null, ns, "rome-4b2a9e"), `${ns}-rome-4b2a9e`);
  assert.equal(remoteNamespaceOf(null, ns, null), null);
});

Deno.test("offload columns: pod names and a title note without remote nodes; node names once placed", () => {
  const pods: ProbePod[] = [0, 1].map((i) => ({
    side: "remote",
    execSide: "local",
    namespace: "ns",
    name: `ff-probe-${PEER}-${i}`,
    node: PEER,
    podIP: `10.71.${i}.7`,
  }));
  const before = offloadColumns(pods, [PEER]);
  assert.deepEqual(before.labels, [`ff-probe-${PEER}-0`, `ff-probe-${PEER}-1`]);
  assert.match(
    before.note!,
    /columns are offloaded pods: their provider nodes are unknown .*virtual node milan-8d1f03.*--remote-kubeconfig/,
  );
  const placed = placeOffloadedPods(pods, [
    { metadata: { name: `ff-probe-${PEER}-0` }, spec: { nodeName: "milan-worker-1" } },
    { metadata: { name: `ff-probe-${PEER}-1` }, spec: { nodeName: "milan-worker-2" } },
  ]);
  const after = offloadColumns(placed, [PEER]);
  assert.deepEqual(after.labels, ["milan-worker-1", "milan-worker-2"]);
  assert.equal(after.note, null);
  assert.equal(pods[0].node, PEER, "input not changed");
});
