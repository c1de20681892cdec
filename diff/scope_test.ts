import assert from "node:assert/strict";
import { REMOTE_ID_LABEL } from "../liqo/names.ts";
import type { K8sObject } from "../kube/source.ts";
import type { ClusterCapture } from "./capture.ts";
import { scopedToPeer } from "./scope.ts";

const obj = (name: string, namespace?: string, peer?: string): K8sObject => ({
  metadata: {
    name,
    ...(namespace ? { namespace } : {}),
    ...(peer ? { labels: { [REMOTE_ID_LABEL]: peer } } : {}),
  },
});

Deno.test("scopedToPeer: another peer's labelled objects, tenant namespace and gateway sample go; cluster-wide ones stay", () => {
  const capture: ClusterCapture = {
    role: "local",
    name: "rome",
    lists: {
      namespaces: [
        obj("liqo-tenant-milan", undefined, "milan"),
        obj("liqo-tenant-turin", undefined, "turin"),
        obj("liqo"),
      ],
      secrets: [obj("gw-milan", "liqo-tenant-milan"), obj("gw-turin", "liqo-tenant-turin"), obj("x", "liqo")],
      foreignclusters: [obj("milan", undefined, "milan"), obj("turin", undefined, "turin")],
      nodes: [obj("rome-worker-1")],
    },
    unreadable: {},
    wg: { "liqo-tenant-milan/gw-milan-1": "m", "liqo-tenant-turin/gw-turin-1": "t" },
    truncated: [],
  };
  const s = scopedToPeer(capture, "milan");
  const names = (k: keyof ClusterCapture["lists"]) => s.lists[k]!.map((o) => o.metadata.name);
  assert.deepEqual(names("namespaces"), ["liqo-tenant-milan", "liqo"]);
  assert.deepEqual(names("secrets"), ["gw-milan", "x"]);
  assert.deepEqual(names("foreignclusters"), ["milan"]);
  assert.deepEqual(names("nodes"), ["rome-worker-1"]);
  assert.deepEqual(Object.keys(s.wg), ["liqo-tenant-milan/gw-milan-1"]);
  assert.equal(capture.lists.secrets!.length, 3, "the capture itself is untouched");
});
