/**
 * The fleet against the fake API server (plain HTTP, the real client): a healthy fleet comes up in
 * both clusters; an image that cannot be pulled and a node that takes no pod fail fast, naming the
 * image / node; offload mode waits for the NamespaceOffloading; missing RBAC creates nothing.
 */
import assert from "node:assert/strict";
import { type FakeCluster, type LifecycleInput, loadBase, startFakeCluster } from "../../fakekube/mod.ts";
import { openKubeClient } from "../../kube/live/client.ts";
import type { K8sObject } from "../../kube/source.ts";
import { type FleetPlan, openFleet } from "./fleet.ts";
import { PROBE_IMAGES } from "./images.ts";
import { selectNodes } from "./nodes.ts";
import { PreflightError } from "./preflight.ts";
import { type ProbeTarget, probeTarget } from "./target.ts";
import type { Side } from "../model.ts";

const RUN = "t3st0001";
const NS = `flyingfish-probe-${RUN}`;
const IMAGE = PROBE_IMAGES.probe;

interface Cluster {
  fake: FakeCluster;
  target: ProbeTarget;
  nodes: K8sObject[];
  close(): Promise<void>;
}

async function cluster(base: "rome" | "milan", side: Side, lifecycle: LifecycleInput = {}): Promise<Cluster> {
  const { objects, wireguard } = await loadBase(base);
  const fake = await startFakeCluster({
    name: base,
    objects,
    wireguard,
    tls: false,
    lifecycle: {
      scheduleDelayMs: 10,
      startDelayMs: 10,
      backOffDelayMs: 20,
      offloadingReadyDelayMs: 20,
      ...lifecycle,
    },
  });
  const client = await openKubeClient({ kubeconfigYaml: fake.kubeconfigYaml() });
  const target = probeTarget({
    side,
    name: base,
    client,
    exec: () => Promise.resolve({ ok: false, reason: "error", message: "no exec in fleet tests" }),
    flags: `--kubeconfig ${base}.yaml`,
  });
  return {
    fake,
    target,
    nodes: objects.filter((o) => o.kind === "Node"),
    close: async () => {
      await client.close();
      await fake.close();
    },
  };
}

function directPlan(local: Cluster, remote: Cluster, timeoutMs = 30_000): FleetPlan {
  const l = selectNodes(local.nodes, "local", []);
  const r = selectNodes(remote.nodes, "remote", []);
  return {
    runId: RUN,
    mode: "direct",
    peer: "milan-8d1f03",
    probes: ["matrix"],
    images: { probe: IMAGE },
    tolerate: [],
    probeTimeoutMs: timeoutMs,
    local: { target: local.target, nodes: l.nodes, hostnames: l.hostnames },
    remote: { target: remote.target, nodes: r.nodes, hostnames: r.hostnames },
    offload: null,
    excluded: [...l.excluded, ...r.excluded],
  };
}

/** GETs of the run namespace's pod list a cluster received: the polls of the wait loop. */
function podPolls(fake: FakeCluster): number {
  return fake.requests.filter((r) => r.method === "GET" && r.path === `/api/v1/namespaces/${NS}/pods`).length;
}

function runObjects(fake: FakeCluster): K8sObject[] {
  return fake.objects().filter((o) => o.metadata.labels?.["flyingfish.io/run-id"] === RUN);
}

Deno.test("openFleet: a healthy fleet comes up Ready in both clusters, everything recorded", async () => {
  const rome = await cluster("rome", "local");
  const milan = await cluster("milan", "remote");
  try {
    const lines: string[] = [];
    const h = await openFleet(directPlan(rome, milan), {
      signal: new AbortController().signal,
      onProgress: (l) => lines.push(l),
    });
    assert.equal(h.failure, null);
    assert.deepEqual(h.fleet.local.map((p) => p.node), ["rome-worker-1", "rome-worker-2"]);
    assert.deepEqual(h.fleet.remote.map((p) => p.node), ["milan-worker-1", "milan-worker-2"]);
    for (const p of [...h.fleet.local, ...h.fleet.remote]) {
      assert.equal(p.namespace, NS);
      assert.equal(p.execSide, p.side);
      assert.match(p.podIP, /^\d+\.\d+\.\d+\.\d+$/);
    }
    assert.deepEqual(
      h.fleet.excluded.map((e) => `${e.side} ${e.node}`),
      [
        "local milan-8d1f03",
        "local rome-cp-1",
        "remote milan-cp-1",
      ].filter((x) => h.fleet.excluded.some((e) => `${e.side} ${e.node}` === x)),
    );
    assert.ok(h.fleet.excluded.some((e) => e.node === "rome-cp-1" && /control plane/.test(e.reason)));
    assert.deepEqual(
      h.created.map((c) => `${c.cluster} ${c.kind} ${c.name}`).sort(),
      [
        `milan Namespace ${NS}`,
        "milan Pod ff-probe-milan-worker-1",
        "milan Pod ff-probe-milan-worker-2",
        `rome Namespace ${NS}`,
        "rome Pod ff-probe-rome-worker-1",
        "rome Pod ff-probe-rome-worker-2",
      ],
    );
    assert.equal(lines.at(-1), "4/4 probe pods Ready");
    // The server's own state: the namespace enforces restricted, and admission let the pods in.
    const ns = rome.fake.objects().find((o) => o.kind === "Namespace" && o.metadata.name === NS)!;
    assert.equal(ns.metadata.labels?.["pod-security.kubernetes.io/enforce"], "restricted");
    assert.equal(runObjects(milan.fake).filter((o) => o.kind === "Pod").length, 2);
    // handle.create puts an object in the run namespace, labelled, and records it.
    const res = await h.create("local", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "extra" },
      data: { a: "b" },
    });
    assert.ok(res.ok, JSON.stringify(res));
    const cm = runObjects(rome.fake).find((o) => o.kind === "ConfigMap")!;
    assert.equal(cm.metadata.namespace, NS);
    assert.equal(h.created.at(-1)?.name, "extra");
  } finally {
    await rome.close();
    await milan.close();
  }
});

Deno.test("openFleet: an image that cannot be pulled fails fast, naming the image, pods and nodes", async () => {
  const rome = await cluster("rome", "local");
  // The back-off comes late here, so the polls see ErrImagePull and the registry's message.
  const milan = await cluster("milan", "remote", { imagePullFailures: ["agnhost"], backOffDelayMs: 30_000 });
  try {
    const h = await openFleet(directPlan(rome, milan, 60_000), { signal: new AbortController().signal });
    assert.ok(h.failure);
    assert.match(
      h.failure,
      new RegExp(`probe image ${IMAGE.replace(/[.]/g, "\\.")} cannot be pulled in milan`),
    );
    assert.match(h.failure, /ErrImagePull/);
    assert.match(h.failure, /ff-probe-milan-worker-1 \(node milan-worker-1\)/);
    assert.match(h.failure, /ff-probe-milan-worker-2 \(node milan-worker-2\)/);
    assert.match(h.failure, /Failed to pull image/);
    // Fast: a handful of polls (250 ms doubling to 1 s), not the ~60 a 60 s timeout would take.
    assert.ok(podPolls(milan.fake) <= 4, `${podPolls(milan.fake)} polls`);
    // The pods that did come up are still reported (and everything created is recorded for cleanup).
    assert.equal(h.created.filter((c) => c.kind === "Pod").length, 4);
  } finally {
    await rome.close();
    await milan.close();
  }
});

Deno.test("openFleet: a node that takes no pod fails fast as Unschedulable, naming the node", async () => {
  const rome = await cluster("rome", "local", { unschedulable: ["rome-worker-2"] });
  const milan = await cluster("milan", "remote");
  try {
    const h = await openFleet(directPlan(rome, milan, 60_000), { signal: new AbortController().signal });
    assert.ok(h.failure);
    assert.match(
      h.failure,
      /probe pod ff-probe-rome-worker-2 for node rome-worker-2 in rome .*Unschedulable: 0\/\d nodes are available/,
    );
    assert.ok(podPolls(rome.fake) <= 4, `${podPolls(rome.fake)} polls`);
  } finally {
    await rome.close();
    await milan.close();
  }
});

Deno.test("openFleet: offload mode waits for the NamespaceOffloading, then offloads pods through the virtual node", async () => {
  const rome = await cluster("rome", "local");
  try {
    const l = selectNodes(rome.nodes, "local", []);
    const lines: string[] = [];
    const h = await openFleet({
      runId: RUN,
      mode: "offload",
      peer: "milan-8d1f03",
      probes: ["matrix"],
      images: { probe: IMAGE },
      tolerate: [],
      probeTimeoutMs: 30_000,
      local: { target: rome.target, nodes: l.nodes, hostnames: l.hostnames },
      remote: null,
      offload: {
        pods: [{ virtualNode: "milan-8d1f03", index: 0 }, { virtualNode: "milan-8d1f03", index: 1 }],
      },
      excluded: l.excluded,
    }, { signal: new AbortController().signal, onProgress: (x) => lines.push(x) });
    assert.equal(h.failure, null, h.failure ?? "");
    assert.deepEqual(h.offloaded.map((p) => p.name), ["ff-probe-milan-8d1f03-0", "ff-probe-milan-8d1f03-1"]);
    assert.deepEqual(h.fleet.remote, h.offloaded);
    for (const p of h.offloaded) {
      assert.deepEqual([p.side, p.execSide, p.node], ["remote", "local", "milan-8d1f03"]);
    }
    assert.equal(h.created[1].kind, "NamespaceOffloading", "the offloading is created before any pod");
    assert.ok(lines.some((x) => /NamespaceOffloading Ready/.test(x)));
    const no = runObjects(rome.fake).find((o) => o.kind === "NamespaceOffloading")!;
    assert.equal((no.status as { offloadingPhase?: string }).offloadingPhase, "Ready");
  } finally {
    await rome.close();
  }
});

Deno.test("openFleet: missing RBAC stops at pre-flight, naming the verb, and nothing is created", async () => {
  const rome = await cluster("rome", "local", { deny: ["create pods"] });
  const milan = await cluster("milan", "remote", { deny: ["create pods/exec"] });
  try {
    await assert.rejects(
      openFleet(directPlan(rome, milan), { signal: new AbortController().signal }),
      (e: unknown) => {
        assert.ok(e instanceof PreflightError);
        assert.equal(e.exitCode, 3);
        assert.match(e.message, new RegExp(`cannot create pods in namespace ${NS} \\(cluster rome\\)`));
        assert.match(e.message, new RegExp(`cannot create pods/exec in namespace ${NS} \\(cluster milan\\)`));
        return true;
      },
    );
    assert.deepEqual(runObjects(rome.fake), []);
    assert.deepEqual(runObjects(milan.fake), []);
    assert.ok(
      !rome.fake.requests.some((r) => r.method === "POST" && !r.path.includes("selfsubjectaccessreviews")),
    );
  } finally {
    await rome.close();
    await milan.close();
  }
});

Deno.test("openFleet: an offloading that selects no cluster fails fast with Liqo's phase, no pod offloaded", async () => {
  const rome = await cluster("rome", "local");
  try {
    const l = selectNodes(rome.nodes, "local", []);
    const h = await openFleet({
      runId: RUN,
      mode: "offload",
      peer: "paris-00aa11",
      probes: ["matrix"],
      images: { probe: IMAGE },
      tolerate: [],
      probeTimeoutMs: 60_000,
      local: { target: rome.target, nodes: l.nodes, hostnames: l.hostnames },
      remote: null,
      offload: { pods: [{ virtualNode: "milan-8d1f03", index: 0 }] },
      excluded: l.excluded,
    }, { signal: new AbortController().signal });
    assert.match(
      h.failure ?? "",
      /offloading flyingfish-probe-t3st0001 to paris-00aa11 failed: NamespaceOffloading phase NoClusterSelected/,
    );
    // The local pods started meanwhile; nothing was sent toward the virtual node.
    assert.deepEqual(h.created.map((c) => `${c.kind} ${c.name}`), [
      `Namespace ${NS}`,
      "NamespaceOffloading offloading",
      "Pod ff-probe-rome-worker-1",
      "Pod ff-probe-rome-worker-2",
    ]);
    assert.deepEqual(
      (await h.create("remote", { kind: "ConfigMap", apiVersion: "v1", metadata: { name: "x" } })).ok,
      false,
    );
  } finally {
    await rome.close();
  }
});

Deno.test("openFleet: pods not Ready within the probe timeout end the wait with what each pod is waiting for", async () => {
  // Scheduling takes far longer than the timeout: the wait must end at the timeout, not at Ready.
  const rome = await cluster("rome", "local", { scheduleDelayMs: 60_000 });
  const milan = await cluster("milan", "remote");
  try {
    const h = await openFleet(directPlan(rome, milan, 300), { signal: new AbortController().signal });
    // milan's pods may or may not have been seen Ready by then; rome's cannot have been.
    assert.match(h.failure ?? "", /^probe pods not Ready after 0\.3 s: [0-2]\/4 Ready; /);
    assert.match(h.failure ?? "", /ff-probe-rome-worker-1 \(node rome-worker-1, rome\): not scheduled yet/);
    assert.deepEqual(h.fleet.local, []);
  } finally {
    await rome.close();
    await milan.close();
  }
});

Deno.test("openFleet: an interruption during the wait returns the handle with what was created", async () => {
  const rome = await cluster("rome", "local", { scheduleDelayMs: 60_000 });
  const milan = await cluster("milan", "remote");
  try {
    const ctl = new AbortController();
    const h = await openFleet(directPlan(rome, milan, 60_000), {
      signal: ctl.signal,
      onProgress: (line) => {
        if (line.startsWith("0/4")) ctl.abort(new Error("SIGINT"));
      },
    });
    assert.match(h.failure ?? "", /^interrupted before the probe pods were Ready \(SIGINT\)/);
    assert.equal(h.created.filter((c) => c.kind === "Pod").length, 4);
  } finally {
    await rome.close();
    await milan.close();
  }
});

Deno.test("openFleet: a cluster without a schedulable node is a failure before anything is created", async () => {
  const rome = await cluster("rome", "local");
  const milan = await cluster("milan", "remote");
  try {
    const plan = directPlan(rome, milan);
    plan.remote!.nodes = [];
    plan.excluded.push({ side: "remote", node: "milan-worker-1", reason: "cordoned" });
    const h = await openFleet(plan, { signal: new AbortController().signal });
    assert.match(
      h.failure ?? "",
      /^no schedulable node for probe pods in milan \(left out: .*milan-worker-1: cordoned/,
    );
    assert.deepEqual(h.created, []);
    assert.equal(rome.fake.requests.filter((r) => r.method === "POST").length, 0);
  } finally {
    await rome.close();
    await milan.close();
  }
});
