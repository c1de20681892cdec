import assert from "node:assert/strict";
import type { K8sObject } from "../../kube/source.ts";
import { selectNodes } from "./nodes.ts";

interface NodeOpts {
  labels?: Record<string, string>;
  taints?: { key: string; value?: string; effect: string }[];
  unschedulable?: boolean;
  ready?: "True" | "False" | "Unknown" | null;
  hostname?: string;
}

function node(name: string, o: NodeOpts = {}): K8sObject {
  const ready = o.ready === undefined ? "True" : o.ready;
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: { "kubernetes.io/hostname": o.hostname ?? name, "kubernetes.io/os": "linux", ...o.labels },
    },
    spec: { ...(o.taints ? { taints: o.taints } : {}), ...(o.unschedulable ? { unschedulable: true } : {}) },
    status: {
      conditions: ready === null ? [] : [{
        type: "Ready",
        status: ready,
        reason: ready === "True" ? "KubeletReady" : "KubeletNotReady",
        message: ready === "True" ? "kubelet is posting ready status" : "container runtime network not ready",
      }],
    },
  };
}

const CP_TAINT = { key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" };
const CP_LABEL = { "node-role.kubernetes.io/control-plane": "" };

const CLUSTER: K8sObject[] = [
  node("w-2"),
  node("w-1"),
  node("cp-1", { labels: CP_LABEL, taints: [CP_TAINT] }),
  node("old-master", { labels: { "node-role.kubernetes.io/master": "" } }),
  node("milan-8d1f03", {
    labels: { "liqo.io/type": "virtual-node", "liqo.io/remote-cluster-id": "milan-8d1f03" },
    taints: [{ key: "virtual-node.liqo.io/not-allowed", value: "true", effect: "NoExecute" }],
  }),
  node("cordoned", {
    unschedulable: true,
    taints: [{ key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" }],
  }),
  node("broken", { ready: "False" }),
  node("silent", { ready: null }),
  node("gpu", { taints: [{ key: "nvidia.com/gpu", value: "present", effect: "NoSchedule" }] }),
  node("evicting", { taints: [{ key: "dedicated", value: "db", effect: "NoExecute" }] }),
  node("soft", { taints: [{ key: "spot", effect: "PreferNoSchedule" }] }),
  node("win", { labels: { "kubernetes.io/os": "windows" } }),
];

Deno.test("selectNodes: a table of nodes, each kept or left out with its reason", () => {
  const sel = selectNodes(CLUSTER, "local", []);
  assert.deepEqual(sel.nodes, ["soft", "w-1", "w-2"]);
  const reasons = Object.fromEntries(sel.excluded.map((e) => [e.node, e.reason]));
  assert.deepEqual(Object.keys(reasons).sort(), [
    "broken",
    "cordoned",
    "cp-1",
    "evicting",
    "gpu",
    "milan-8d1f03",
    "old-master",
    "silent",
    "win",
  ]);
  assert.ok(sel.excluded.every((e) => e.side === "local"));
  assert.match(reasons["milan-8d1f03"], /^Liqo virtual node/);
  assert.match(
    reasons["cp-1"],
    /^control plane \(tainted node-role.kubernetes.io\/control-plane:NoSchedule; --tolerate node-role.kubernetes.io\/control-plane/,
  );
  assert.match(reasons["old-master"], /^control plane \(--tolerate/);
  assert.equal(reasons["cordoned"], "cordoned");
  assert.equal(reasons["broken"], "NotReady (KubeletNotReady: container runtime network not ready)");
  assert.equal(reasons["silent"], "NotReady (no Ready condition)");
  assert.equal(
    reasons["gpu"],
    "tainted nvidia.com/gpu=present:NoSchedule (--tolerate nvidia.com/gpu to include it)",
  );
  assert.match(reasons["evicting"], /^tainted dedicated=db:NoExecute/);
  assert.match(reasons["win"], /^windows node/);
});

Deno.test("selectNodes: --tolerate KEY brings tainted and control-plane nodes in", () => {
  const sel = selectNodes(CLUSTER, "remote", ["nvidia.com/gpu", "node-role.kubernetes.io/control-plane"]);
  assert.deepEqual(sel.nodes, ["cp-1", "gpu", "old-master", "soft", "w-1", "w-2"]);
  assert.ok(sel.excluded.every((e) => e.side === "remote"));
  // Tolerating a key never brings in a node that is down or not a real node.
  assert.deepEqual(sel.excluded.map((e) => e.node), [
    "broken",
    "cordoned",
    "evicting",
    "milan-8d1f03",
    "silent",
    "win",
  ]);
});

Deno.test("selectNodes: a control plane that is also NotReady says both", () => {
  const sel = selectNodes(
    [node("cp", { labels: CP_LABEL, taints: [CP_TAINT], ready: "Unknown" }), node("w")],
    "local",
    [],
  );
  assert.deepEqual(sel.nodes, ["w"]);
  assert.match(sel.excluded[0].reason, /^control plane, NotReady/);
});

Deno.test("selectNodes: untainted control-plane nodes are probed when they are all there is (kind, k3s)", () => {
  const sel = selectNodes(
    [node("k3s-server", { labels: CP_LABEL }), node("cp-2", { labels: CP_LABEL, taints: [CP_TAINT] })],
    "local",
    [],
  );
  assert.deepEqual(sel.nodes, ["k3s-server"]);
  assert.deepEqual(sel.excluded.map((e) => e.node), ["cp-2"]);
});

Deno.test("selectNodes: hostnames come from the kubernetes.io/hostname label", () => {
  const sel = selectNodes([node("ip-10-0-1-23.ec2.internal", { hostname: "ip-10-0-1-23" })], "local", []);
  assert.deepEqual(sel.hostnames, { "ip-10-0-1-23.ec2.internal": "ip-10-0-1-23" });
});

Deno.test("selectNodes: no nodes, nothing selected", () => {
  assert.deepEqual(selectNodes([], "local", []), { nodes: [], hostnames: {}, excluded: [] });
});
