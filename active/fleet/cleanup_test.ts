/**
 * Cleanup against the fake API server (plain HTTP), asserted from the server's state
 * (`FakeCluster.objects()`): the NamespaceOffloading goes first, then the namespace with its pods;
 * a stuck namespace is reported with its finalizers and conditions within the budget; `--keep`
 * removes nothing; a namespace without the run's labels is never deleted; leftovers are found by
 * label and only the expired ones go unless `--run-id`/`--all`.
 */
import assert from "node:assert/strict";
import { type FakeCluster, startFakeCluster } from "../../fakekube/mod.ts";
import { openKubeClient } from "../../kube/live/client.ts";
import type { K8sObject } from "../../kube/source.ts";
import { collectionPath } from "../../kube/live/write.ts";
import { cleanupLeftovers, cleanupRun, refusalToDelete, stuckDetail } from "./cleanup.ts";
import { type ProbeTarget, probeTarget } from "./target.ts";
import { PROBE_LABELS, probeNamespace } from "../model.ts";

const sanitizers = { sanitizeOps: false, sanitizeResources: false };

const NODE: K8sObject = {
  apiVersion: "v1",
  kind: "Node",
  metadata: { name: "rome-worker-1", labels: { "kubernetes.io/hostname": "rome-worker-1" } },
  spec: { podCIDR: "10.200.1.0/24" },
  status: { conditions: [{ type: "Ready", status: "True" }] },
};

/** An unrelated NamespaceOffloading, so that the fake server serves the kind. */
const OTHER_OFFLOADING: K8sObject = {
  apiVersion: "offloading.liqo.io/v1beta1",
  kind: "NamespaceOffloading",
  metadata: { name: "offloading", namespace: "team-a" },
  spec: { namespaceMappingStrategy: "DefaultName", podOffloadingStrategy: "LocalAndRemote" },
};

function runNamespace(runId: string, expiresAt: string, labels = true): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: {
      name: probeNamespace(runId),
      labels: labels
        ? { [PROBE_LABELS.managedBy]: PROBE_LABELS.managedByValue, [PROBE_LABELS.runId]: runId }
        : {},
      annotations: { [PROBE_LABELS.expiresAt]: expiresAt },
    },
  };
}

function probePod(runId: string, name: string): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: probeNamespace(runId),
      labels: { [PROBE_LABELS.managedBy]: PROBE_LABELS.managedByValue, [PROBE_LABELS.runId]: runId },
    },
    spec: { containers: [{ name: "probe", image: "registry.k8s.io/e2e-test-images/agnhost:2.53" }] },
  };
}

function offloading(runId: string): K8sObject {
  return {
    ...OTHER_OFFLOADING,
    metadata: {
      name: "offloading",
      namespace: probeNamespace(runId),
      labels: { [PROBE_LABELS.runId]: runId },
    },
  };
}

interface Env {
  fake: FakeCluster;
  target: ProbeTarget;
  /** Creates objects through the API (as a run would). */
  create(...objs: K8sObject[]): Promise<void>;
  /** Names of what the server holds with the run id (label or namespace). */
  leftOf(runId: string): string[];
}

async function withCluster(
  lifecycle: Record<string, unknown>,
  fn: (env: Env) => Promise<void>,
): Promise<void> {
  const fake = await startFakeCluster({
    name: "rome",
    objects: [NODE, OTHER_OFFLOADING],
    wireguard: {},
    tls: false,
    lifecycle: { namespaceDeleteDelayMs: 100, ...lifecycle },
  });
  const client = await openKubeClient({ kubeconfigYaml: fake.kubeconfigYaml(), requestTimeoutMs: 5_000 });
  const exec = () => Promise.resolve({ ok: false as const, reason: "error" as const, message: "no exec" });
  const target = probeTarget({ side: "local", name: "rome", client, exec, flags: "--kubeconfig rome.yaml" });
  const env: Env = {
    fake,
    target,
    create: async (...objs) => {
      for (const o of objs) {
        const r = await target.writer.create(collectionPath(o), o);
        assert.ok(r.ok, JSON.stringify(r));
      }
    },
    leftOf: (runId) =>
      fake.objects().filter((o) =>
        o.metadata.labels?.[PROBE_LABELS.runId] === runId || o.metadata.name === probeNamespace(runId) ||
        o.metadata.namespace === probeNamespace(runId)
      ).map((o) => `${o.kind}/${o.metadata.namespace ? o.metadata.namespace + "/" : ""}${o.metadata.name}`),
  };
  try {
    await fn(env);
  } finally {
    await client.close();
    await fake.close();
  }
}

const LATER = new Date(Date.now() + 3_600_000).toISOString();
const EARLIER = new Date(Date.now() - 60_000).toISOString();

Deno.test({
  name: "cleanupRun: offloading first, then the namespace and its pods; nothing with the run id is left",
  ...sanitizers,
  fn: () =>
    withCluster({}, async (env) => {
      const id = "k3x9q2m1";
      await env.create(
        runNamespace(id, LATER),
        probePod(id, "probe-a"),
        probePod(id, "probe-b"),
        offloading(id),
      );
      assert.equal(env.leftOf(id).length, 4);
      const records = await cleanupRun(env.target, id, { budgetMs: 10_000 });
      assert.equal(records.length, 1);
      assert.equal(records[0].status, "removed", records[0].detail);
      assert.equal(records[0].cluster, "rome");
      assert.equal(records[0].namespace, probeNamespace(id));
      assert.match(records[0].detail, /NamespaceOffloading offloading removed/);
      assert.deepEqual(env.leftOf(id), []);
      // The NamespaceOffloading was deleted before the namespace.
      const deletes = env.fake.requests.filter((r) => r.method === "DELETE").map((r) => r.path);
      assert.deepEqual(deletes, [
        `/apis/offloading.liqo.io/v1beta1/namespaces/${probeNamespace(id)}/namespaceoffloadings/offloading`,
        `/api/v1/namespaces/${probeNamespace(id)}`,
      ]);
      // The unrelated NamespaceOffloading is untouched.
      assert.ok(env.fake.objects().some((o) => o.metadata.namespace === "team-a"));
      // Again: nothing to remove.
      assert.equal((await cleanupRun(env.target, id))[0].status, "removed");
    }),
});

Deno.test({
  name: "cleanupRun: a stuck namespace is reported with its finalizers and conditions, within the budget",
  ...sanitizers,
  fn: () =>
    withCluster({ namespaceStuck: true }, async (env) => {
      const id = "st0ckns1";
      await env.create(runNamespace(id, LATER), probePod(id, "probe-a"));
      const t0 = Date.now();
      const [rec] = await cleanupRun(env.target, id, { budgetMs: 1_200, offloading: false });
      const took = Date.now() - t0;
      assert.equal(rec.status, "stuck", rec.detail);
      assert.match(rec.detail, /still Terminating after \d+\.\d s/);
      assert.match(rec.detail, /phase Terminating/);
      assert.match(rec.detail, /finalizers kubernetes/);
      assert.match(rec.detail, /NamespaceDeletionDiscoveryFailure/);
      assert.ok(took < 1_200 + 1_500, `took ${took} ms`);
      // The namespace is still there, Terminating: the server's own state says so.
      const ns = env.fake.objects().find((o) => o.metadata.name === probeNamespace(id));
      assert.ok(ns?.metadata.deletionTimestamp);
    }),
});

Deno.test({
  name: "cleanupRun: --keep removes nothing; a namespace without the run's labels is never deleted",
  ...sanitizers,
  fn: () =>
    withCluster({}, async (env) => {
      const kept = "keep0001";
      await env.create(runNamespace(kept, LATER));
      const [k] = await cleanupRun(env.target, kept, { keep: true });
      assert.deepEqual([k.status, k.detail], ["kept", "kept (--keep)"]);
      assert.equal(env.leftOf(kept).length, 1);

      const impostor = "imp0st0r";
      await env.create(runNamespace(impostor, LATER, false));
      const [r] = await cleanupRun(env.target, impostor);
      assert.equal(r.status, "failed");
      assert.match(
        r.detail,
        /not deleted: namespace flyingfish-probe-imp0st0r is not labelled app\.kubernetes\.io\/managed-by=flyingfish/,
      );
      assert.equal(env.leftOf(impostor).length, 1, "still there");
      assert.equal(env.fake.requests.filter((q) => q.method === "DELETE").length, 0);
    }),
});

Deno.test({
  name: "cleanupRun: a refused delete is a failed record with the server's message, never an exception",
  ...sanitizers,
  fn: () =>
    withCluster({ deny: ["delete namespaces"] }, async (env) => {
      const id = "den1ed00";
      await env.create(runNamespace(id, LATER));
      const [r] = await cleanupRun(env.target, id, { offloading: false });
      assert.equal(r.status, "failed");
      assert.match(r.detail, /delete of namespace flyingfish-probe-den1ed00 refused: .*forbidden/);
    }),
});

Deno.test({
  name: "cleanupLeftovers: by label; only expired runs unless --run-id or --all; mismatched names left alone",
  ...sanitizers,
  fn: () =>
    withCluster({}, async (env) => {
      await env.create(
        runNamespace("expired1", EARLIER),
        probePod("expired1", "probe-a"),
        runNamespace("fresh001", LATER),
        runNamespace("fresh002", LATER),
        runNamespace("nolabel1", EARLIER, false),
        {
          apiVersion: "v1",
          kind: "Namespace",
          metadata: {
            name: "team-x",
            labels: {
              [PROBE_LABELS.managedBy]: PROBE_LABELS.managedByValue,
              [PROBE_LABELS.runId]: "teamx001",
            },
          },
        },
      );
      const first = await cleanupLeftovers([env.target]);
      const byNs = (rs: typeof first) => Object.fromEntries(rs.map((r) => [r.namespace, r.status]));
      assert.deepEqual(byNs(first), {
        "flyingfish-probe-expired1": "removed",
        "flyingfish-probe-fresh001": "kept",
        "flyingfish-probe-fresh002": "kept",
        "team-x": "kept",
      });
      assert.match(first.find((r) => r.namespace === "flyingfish-probe-fresh001")!.detail, /not expired/);
      assert.match(
        first.find((r) => r.namespace === "team-x")!.detail,
        /left alone: namespace team-x is not named/,
      );
      assert.deepEqual(env.leftOf("expired1"), []);

      const one = await cleanupLeftovers([env.target], { runId: "fresh001" });
      assert.deepEqual(byNs(one), { "flyingfish-probe-fresh001": "removed" });

      const all = await cleanupLeftovers([env.target], { all: true });
      assert.deepEqual(byNs(all), { "flyingfish-probe-fresh002": "removed", "team-x": "kept" });
      const names = env.fake.objects().filter((o) => o.kind === "Namespace").map((o) => o.metadata.name);
      assert.ok(names.includes("team-x") && names.includes("flyingfish-probe-nolabel1"), names.join(", "));
      assert.ok(!names.includes("flyingfish-probe-fresh002"));
    }),
});

Deno.test("refusalToDelete and stuckDetail", () => {
  const ns = runNamespace("abcd1234", LATER);
  assert.equal(refusalToDelete(ns, "abcd1234"), null);
  assert.match(refusalToDelete(ns, "zzzz9999")!, /is not named flyingfish-probe-zzzz9999/);
  assert.match(
    refusalToDelete({
      ...ns,
      metadata: { ...ns.metadata, labels: { [PROBE_LABELS.managedBy]: "flyingfish" } },
    }, "abcd1234")!,
    /is not labelled flyingfish\.io\/run-id=abcd1234/,
  );
  assert.equal(stuckDetail(null), "no state could be read");
  assert.equal(
    stuckDetail({
      metadata: { name: "x", finalizers: ["example.com/hold"] },
      spec: { finalizers: ["kubernetes"] },
      status: {
        phase: "Terminating",
        conditions: [
          {
            type: "NamespaceContentRemaining",
            status: "True",
            reason: "SomeResourcesRemain",
            message: "pods has 1",
          },
          { type: "NamespaceDeletionDiscoveryFailure", status: "False", reason: "ResourcesDiscovered" },
        ],
      },
    }),
    "phase Terminating; NamespaceContentRemaining (SomeResourcesRemain: pods has 1); finalizers kubernetes, example.com/hold",
  );
});
