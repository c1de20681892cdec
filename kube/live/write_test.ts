/**
 * The writer (kube/live/write.ts) against the fake API server over plain HTTP: creates (and dry
 * runs that store nothing), refusals as outcomes with the Status reason, deletes with a propagation
 * policy, lists by label, SelfSubjectAccessReviews from the server's permission table, the polling
 * wait (done, fail-fast, timeout, abort), writes sent exactly once, and a missing --allow-net as the
 * permission tool error.
 */
import assert from "node:assert/strict";
import { type FakeCluster, startFakeCluster } from "../../fakekube/mod.ts";
import { PermissionError, ToolError } from "../../errors.ts";
import type { K8sObject } from "../source.ts";
import { isUnsent } from "../http.ts";
import { type KubeClient, openKubeClient } from "./client.ts";
import { collectionPath, kubeWriter, objectPath } from "./write.ts";

const sanitizers = { sanitizeOps: false, sanitizeResources: false };

const NODE: K8sObject = {
  apiVersion: "v1",
  kind: "Node",
  metadata: { name: "rome-worker-1", labels: { "kubernetes.io/hostname": "rome-worker-1" } },
  spec: { podCIDR: "10.200.1.0/24" },
  status: { conditions: [{ type: "Ready", status: "True" }] },
};

function namespace(name: string, labels: Record<string, string> = {}): K8sObject {
  return { apiVersion: "v1", kind: "Namespace", metadata: { name, labels } };
}

async function withCluster(
  fn: (fake: FakeCluster, client: KubeClient) => Promise<void>,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const fake = await startFakeCluster({ name: "rome", objects: [NODE], wireguard: {}, tls: false, ...extra });
  const client = await openKubeClient({ kubeconfigYaml: fake.kubeconfigYaml(), requestTimeoutMs: 5_000 });
  try {
    await fn(fake, client);
  } finally {
    await client.close();
    await fake.close();
  }
}

const methods = (fake: FakeCluster, method: string) => fake.requests.filter((r) => r.method === method);

Deno.test("paths: collection and object paths of core, cluster-scoped and Liqo kinds", () => {
  assert.equal(collectionPath(namespace("a")), "/api/v1/namespaces");
  assert.equal(objectPath(namespace("a")), "/api/v1/namespaces/a");
  const pod: K8sObject = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "n" } };
  assert.equal(collectionPath(pod), "/api/v1/namespaces/n/pods");
  const off: K8sObject = {
    apiVersion: "offloading.liqo.io/v1beta1",
    kind: "NamespaceOffloading",
    metadata: { name: "offloading", namespace: "n" },
  };
  assert.equal(
    objectPath(off),
    "/apis/offloading.liqo.io/v1beta1/namespaces/n/namespaceoffloadings/offloading",
  );
  const svc: K8sObject = { apiVersion: "v1", kind: "Service", metadata: { name: "s", namespace: "n" } };
  assert.equal(collectionPath(svc), "/api/v1/namespaces/n/services");
});

Deno.test({
  name: "writer: create, conflict, dry run stores nothing, get, list by label, delete then wait until gone",
  ...sanitizers,
  fn: () =>
    withCluster(async (fake, client) => {
      const w = kubeWriter(client);
      const ns = namespace("flyingfish-probe-abcd1234", { "app.kubernetes.io/managed-by": "flyingfish" });

      const dry = await w.create("/api/v1/namespaces", namespace("flyingfish-probe-dry00000"), {
        dryRun: true,
      });
      assert.ok(dry.ok, JSON.stringify(dry));
      assert.equal(fake.objects().some((o) => o.metadata.name === "flyingfish-probe-dry00000"), false);
      assert.ok(methods(fake, "POST").some((r) => /(^|&)dryRun=All(&|$)/.test(r.query)));

      const made = await w.create("/api/v1/namespaces", ns);
      assert.ok(made.ok, JSON.stringify(made));
      assert.equal(made.status, 201);
      assert.equal(made.object.metadata.name, ns.metadata.name);

      const again = await w.create("/api/v1/namespaces", ns);
      assert.equal(again.ok, false);
      if (!again.ok) {
        assert.equal(again.status, 409);
        assert.equal(again.reason, "AlreadyExists");
        assert.match(again.message, /already exists/);
      }

      const got = await w.get(objectPath(ns));
      assert.ok(got.ok);
      const missing = await w.get("/api/v1/namespaces/nope");
      assert.equal(missing.ok, false);
      if (!missing.ok) assert.equal(missing.status, 404);

      const listed = await w.list("/api/v1/namespaces", {
        labelSelector: "app.kubernetes.io/managed-by=flyingfish",
      });
      assert.ok(listed.ok);
      if (listed.ok) {
        assert.deepEqual(listed.items.map((o) => o.metadata.name), [ns.metadata.name]);
        assert.equal(listed.items[0].kind, "Namespace");
        assert.notEqual(listed.resourceVersion, "");
      }

      const del = await w.remove(objectPath(ns), { propagation: "Background" });
      assert.ok(del.ok, JSON.stringify(del));
      const delReq = methods(fake, "DELETE").at(-1)!;
      assert.match(delReq.query, /propagationPolicy=Background/);
      const gone = await w.waitFor(objectPath(ns), (o) => o === null, { timeoutMs: 5_000 });
      assert.equal(gone.state, "done");
      assert.equal(fake.objects().some((o) => o.metadata.name === ns.metadata.name), false);
      const delMissing = await w.remove(objectPath(ns));
      assert.equal(delMissing.ok ? 0 : delMissing.status, 404);
    }, { lifecycle: { namespaceDeleteDelayMs: 100 } }),
});

Deno.test({
  name: "writer: access reviews answer from the server's permission table, in order",
  ...sanitizers,
  fn: () =>
    withCluster(async (_fake, client) => {
      const w = kubeWriter(client);
      const verdicts = await w.accessReview([
        { verb: "create", resource: "namespaces" },
        { verb: "create", resource: "pods", subresource: "exec", namespace: "flyingfish-probe-x" },
        { verb: "list", resource: "nodes" },
      ]);
      assert.deepEqual(verdicts.map((v) => [v.verb, v.resource, v.allowed]), [
        ["create", "namespaces", true],
        ["create", "pods", false],
        ["list", "nodes", true],
      ]);
      assert.equal(verdicts[1].subresource, "exec");
    }, { lifecycle: { deny: ["create pods/exec"] } }),
});

Deno.test({
  name: "writer: waitFor ends on a fail-fast reason, times out with the last object, rejects on abort",
  ...sanitizers,
  fn: () =>
    withCluster(async (_fake, client) => {
      const w = kubeWriter(client);
      const path = "/api/v1/nodes/rome-worker-1";
      const failed = await w.waitFor(path, (o) => o ? "node is there" : false, { timeoutMs: 2_000 });
      assert.deepEqual([failed.state, failed.state === "failed" ? failed.reason : ""], [
        "failed",
        "node is there",
      ]);

      const t0 = Date.now();
      const timeout = await w.waitFor(path, (o) => o === null, { timeoutMs: 600 });
      const took = Date.now() - t0;
      assert.equal(timeout.state, "timeout");
      assert.equal(timeout.object?.metadata.name, "rome-worker-1");
      assert.ok(took >= 550 && took < 2_000, `took ${took} ms`);

      const ctl = new AbortController();
      const why = new Error("stop now");
      setTimeout(() => ctl.abort(why), 100);
      await assert.rejects(
        w.waitFor(path, (o) => o === null, { timeoutMs: 10_000, signal: ctl.signal }),
        why,
      );
    }),
});

Deno.test({
  name: "writer: a write is sent once, even when it gets a 503; a GET is retried",
  ...sanitizers,
  fn: () =>
    withCluster(async (fake, client) => {
      const w = kubeWriter(client);
      fake.setFaults([{ path: "^/api/v1/namespaces$", method: "POST", type: "status", status: 503 }]);
      const made = await w.create("/api/v1/namespaces", namespace("flyingfish-probe-once0000"));
      assert.equal(made.ok, false);
      if (!made.ok) assert.equal(made.status, 503);
      assert.equal(methods(fake, "POST").length, 1, "no automatic retry of a write");

      fake.setFaults([{ path: "^/api/v1/namespaces$", method: "POST", type: "reset" }]);
      await assert.rejects(w.create("/api/v1/namespaces", namespace("flyingfish-probe-once0001")), ToolError);
      assert.equal(methods(fake, "POST").length, 2, "a write the server may have seen is not resent");

      fake.setFaults([{ path: "^/api/v1/nodes/rome-worker-1$", type: "status", status: 503, count: 1 }]);
      const got = await w.get("/api/v1/nodes/rome-worker-1");
      assert.ok(got.ok, "the GET was retried past the 503");
    }),
});

Deno.test({
  name:
    "writer: a connection refused before anything was sent is marked unsent; the writer says so as a tool error",
  ...sanitizers,
  fn: async () => {
    const fake = await startFakeCluster({ name: "gone", objects: [], wireguard: {}, tls: false });
    const kubeconfigYaml = fake.kubeconfigYaml();
    await fake.close();
    const client = await openKubeClient({ kubeconfigYaml, requestTimeoutMs: 2_000 });
    try {
      const err = await client.request("POST", "/api/v1/namespaces", { body: "{}" }).then(
        () => null,
        (e) => e,
      );
      assert.ok(err, "the request failed");
      assert.equal(isUnsent(err), true);
      const w = kubeWriter(client);
      await assert.rejects(
        w.create("/api/v1/namespaces", namespace("x")),
        (e: unknown) => e instanceof ToolError && /cannot reach the API server/.test(e.message),
      );
    } finally {
      await client.close();
    }
  },
});

Deno.test({
  name:
    "writer: without --allow-net a write is the missing-permission tool error (exit 3), not a stack trace",
  permissions: { net: false, env: true, read: true },
  ...sanitizers,
  fn: async () => {
    const client = await openKubeClient({
      kubeconfigYaml: [
        "apiVersion: v1",
        "kind: Config",
        "clusters: [{name: c, cluster: {server: 'http://127.0.0.1:9', insecure-skip-tls-verify: true}}]",
        "users: [{name: c, user: {token: t}}]",
        "contexts: [{name: c, context: {cluster: c, user: c}}]",
        "current-context: c",
      ].join("\n"),
    });
    try {
      const w = kubeWriter(client);
      await assert.rejects(w.create("/api/v1/namespaces", namespace("x")), (e: unknown) => {
        assert.ok(e instanceof PermissionError, String(e));
        assert.equal(e.flag, "--allow-net");
        assert.equal(e.exitCode, 3);
        return true;
      });
      await assert.rejects(w.accessReview([{ verb: "create", resource: "pods" }]), PermissionError);
    } finally {
      await client.close();
    }
  },
});

Deno.test({
  name:
    "request: a write is resent only when nothing of it was sent (TLS handshake cut), never after connect",
  ...sanitizers,
  fn: async () => {
    for (const [scheme, attempts] of [["https", 3], ["http", 1]] as const) {
      // A server that cuts every connection as soon as it is accepted.
      const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      let accepted = 0;
      const serving = (async () => {
        for await (const c of listener) {
          accepted++;
          c.close();
        }
      })().catch(() => {});
      const { port } = listener.addr as Deno.NetAddr;
      const client = await openKubeClient({
        kubeconfigYaml: [
          "apiVersion: v1",
          "kind: Config",
          `clusters: [{name: c, cluster: {server: '${scheme}://127.0.0.1:${port}', insecure-skip-tls-verify: true}}]`,
          "users: [{name: c, user: {token: t}}]",
          "contexts: [{name: c, context: {cluster: c, user: c}}]",
          "current-context: c",
        ].join("\n"),
        requestTimeoutMs: 5_000,
        retry: { attempts: 3, baseMs: 2, capMs: 10 },
      });
      try {
        const err = await client.request("POST", "/api/v1/namespaces", { body: "{}" }).then(
          () => null,
          (e) => e,
        );
        assert.ok(err, `${scheme}: the request failed`);
        assert.equal(isUnsent(err), scheme === "https", `${scheme}: unsent`);
        assert.equal(accepted, attempts, `${scheme}: connections`);
      } finally {
        await client.close();
        listener.close();
        await serving;
      }
    }
  },
});

Deno.test({
  name:
    "writer: a DELETE's body is framed (Content-Length), so the next request on the connection is read right",
  ...sanitizers,
  fn: async () => {
    const fake = await startFakeCluster({ name: "rome", objects: [NODE], wireguard: {}, tls: false });
    // One connection: every request follows the previous one on the same socket.
    const client = await openKubeClient({ kubeconfigYaml: fake.kubeconfigYaml(), maxInFlight: 1 });
    try {
      const w = kubeWriter(client);
      for (let i = 0; i < 3; i++) {
        const del = await w.remove("/api/v1/namespaces/nope");
        assert.equal(del.ok ? 200 : del.status, 404);
        const got = await w.get("/api/v1/nodes/rome-worker-1");
        assert.ok(got.ok, JSON.stringify(got));
      }
      assert.equal(client.stats().connectionsOpened, 1);
    } finally {
      await client.close();
      await fake.close();
    }
  },
});
