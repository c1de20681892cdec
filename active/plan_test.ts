import assert from "node:assert/strict";
import { checkModeAndRemote, choosePeer, planRun } from "./plan.ts";
import type { ActiveCluster, ActiveOptions } from "./context.ts";
import type { ClusterView } from "../checks/types.ts";
import type { K8sObject } from "../kube/source.ts";
import type { ProbeTarget } from "./fleet/target.ts";
import { baseObjects, inventoryOf, type Loose, viewOf } from "../tests/support/fixtures.ts";

const MILAN_ID = "milan-8d1f03";

async function view(name: "rome" | "milan", mutate?: (objs: Loose[]) => void): Promise<ClusterView> {
  const objs = await baseObjects(name);
  mutate?.(objs);
  return viewOf(inventoryOf(objs as K8sObject[]));
}

function cluster(side: "local" | "remote", v: ClusterView): ActiveCluster {
  return { side, view: v, target: { side, name: v.name, flags: "" } as unknown as ProbeTarget };
}

const OPTS: ActiveOptions = {
  probes: ["matrix", "udp", "mtu"],
  mode: "direct",
  peer: null,
  keep: false,
  images: { probe: "registry.k8s.io/e2e-test-images/agnhost:2.x@sha256:0" },
  tolerate: [],
  probeTimeoutMs: 60_000,
  cleanupTimeoutMs: 30_000,
};

Deno.test("plan: the only peer with networking is chosen; --peer must be a known one", async () => {
  const rome = await view("rome");
  assert.deepEqual(choosePeer(rome, null), { ok: true, peer: MILAN_ID });
  assert.deepEqual(choosePeer(rome, MILAN_ID), { ok: true, peer: MILAN_ID });
  assert.throws(
    () => choosePeer(rome, "paris-1"),
    /--peer paris-1: no ForeignCluster .*\(peers: milan-8d1f03\)/,
  );
});

Deno.test("plan: several peers need --peer; none with networking is a reason, not an error", async () => {
  const two = await view("rome", (objs) => {
    const fc = structuredClone(objs.find((o) => o.kind === "ForeignCluster")!);
    fc.metadata.name = "paris-1";
    fc.spec.clusterID = "paris-1";
    objs.push(fc);
  });
  assert.throws(
    () => choosePeer(two, null),
    /2 peers with networking \(milan-8d1f03, paris-1\): choose one with --peer/,
  );
  assert.deepEqual(choosePeer(two, "paris-1"), { ok: true, peer: "paris-1" });

  const off = await view("rome", (objs) => {
    objs.find((o) => o.kind === "ForeignCluster")!.status.modules.networking.enabled = false;
  });
  const c = choosePeer(off, null);
  assert.equal(c.ok, false);
  assert.match(!c.ok ? c.reason : "", /no peer of rome-4b2a9e has networking enabled/);
});

Deno.test("plan: direct mode needs the remote kubeconfig, and it must be the peer", async () => {
  assert.throws(
    () => checkModeAndRemote("direct", null, MILAN_ID),
    /--mode direct needs --remote-kubeconfig/,
  );
  const rome = await view("rome");
  assert.throws(
    () => checkModeAndRemote("direct", rome, MILAN_ID),
    /--remote-kubeconfig cluster is rome-4b2a9e/,
  );
  checkModeAndRemote("offload", null, MILAN_ID);
  checkModeAndRemote("direct", await view("milan"), MILAN_ID);
});

Deno.test("plan: one pod per schedulable worker in each cluster; control plane left out with the reason", async () => {
  const rome = await view("rome");
  const milan = await view("milan");
  const p = planRun({
    runId: "abcd1234",
    peer: MILAN_ID,
    local: cluster("local", rome),
    remote: cluster("remote", milan),
    options: OPTS,
    now: new Date("2026-12-01T00:00:00Z"),
  });
  assert.ok(p.ok);
  if (!p.ok) return;
  assert.deepEqual(p.plan.local.nodes, ["rome-worker-1", "rome-worker-2"]);
  assert.ok(p.plan.remote!.nodes.length > 0);
  assert.ok(
    p.plan.excluded.some((e) =>
      e.side === "local" && e.node === "rome-cp-1" && /control plane/.test(e.reason)
    ),
  );
  // Virtual nodes never get a probe pod.
  assert.ok(!p.plan.local.nodes.includes(MILAN_ID));
  assert.equal(p.plan.offload, null);
  assert.equal(p.plan.gatewayNamespaces?.local, "liqo-tenant-milan-8d1f03");
  assert.equal(p.plan.gatewayNamespaces?.remote, "liqo-tenant-rome-4b2a9e");
});

Deno.test("plan: offload mode offloads to the peer's virtual node; without one it cannot plan", async () => {
  const rome = await view("rome");
  const p = planRun({
    runId: "abcd1234",
    peer: MILAN_ID,
    local: cluster("local", rome),
    remote: null,
    options: { ...OPTS, mode: "offload" },
    now: new Date(),
  });
  assert.ok(p.ok);
  if (!p.ok) return;
  assert.equal(p.plan.remote, null);
  assert.ok(p.plan.offload!.pods.length >= 1);
  assert.ok(p.plan.offload!.pods.every((x) => x.virtualNode === MILAN_ID));

  const noVk = await view("rome", (objs) => {
    const i = objs.findIndex((o) => o.kind === "Node" && o.metadata.name === MILAN_ID);
    objs.splice(i, 1);
  });
  const q = planRun({
    runId: "abcd1234",
    peer: MILAN_ID,
    local: cluster("local", noVk),
    remote: null,
    options: { ...OPTS, mode: "offload" },
    now: new Date(),
  });
  assert.equal(q.ok, false);
  assert.match(!q.ok ? q.reason : "", /no virtual node for milan-8d1f03/);
  // Direct mode with the service probe: the service is what cannot run.
  const r = planRun({
    runId: "abcd1234",
    peer: MILAN_ID,
    local: cluster("local", noVk),
    remote: cluster("remote", await view("milan")),
    options: { ...OPTS, probes: ["matrix", "service"] },
    now: new Date(),
  });
  assert.ok(r.ok);
  assert.match(r.ok ? r.unavailable.service ?? "" : "", /no virtual node/);
});
