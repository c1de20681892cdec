import assert from "node:assert/strict";
import type { K8sObject } from "./object.ts";
import { startFakeCluster } from "./server.ts";
import { buildClusterConfig, loadBase, loadScenario, serveScenario } from "./scenario.ts";
import { imagePullMessage, lifecycleDefaults, LifecycleSchema, nextFree } from "./lifecycle.ts";

Deno.test("lifecycle: schema defaults and validation", () => {
  const d = lifecycleDefaults();
  assert.equal(d.podSecurity, "privileged");
  assert.equal(d.scheduleDelayMs, 50);
  assert.equal(d.namespaceDeleteDelayMs, 300);
  assert.equal(d.namespaceStuck, false);
  assert.deepEqual(d.deny, []);
  assert.equal(LifecycleSchema.safeParse({ deny: ["create"] }).success, false);
  assert.equal(LifecycleSchema.safeParse({ unknownKnob: 1 }).success, false);
  assert.equal(
    LifecycleSchema.safeParse({ deny: ["create pods/exec"], podSecurity: "restricted" }).success,
    true,
  );
});

Deno.test("lifecycle: pod IPs are handed out sequentially after the gateway, skipping used ones", () => {
  assert.equal(nextFree("10.244.1.0/24", new Set()), "10.244.1.2");
  assert.equal(nextFree("10.244.1.0/24", new Set(["10.244.1.2", "10.244.1.3"])), "10.244.1.4");
  assert.equal(nextFree("10.0.0.0/30", new Set(["10.0.0.2"])), null);
  assert.equal(
    imagePullMessage("registry.example/agnhost:x"),
    'Failed to pull image "registry.example/agnhost:x": rpc error: code = NotFound desc = failed to pull and ' +
      'unpack image "registry.example/agnhost:x": failed to resolve reference "registry.example/agnhost:x": ' +
      "registry.example/agnhost:x: not found",
  );
});

/** Reads newline-delimited watch events from a streaming response. */
function events(body: ReadableStream<Uint8Array>): { next(): Promise<{ type: string; object: K8sObject }> } {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  return {
    async next() {
      for (;;) {
        const nl = buf.indexOf("\n");
        if (nl >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          return JSON.parse(line);
        }
        const { value, done } = await reader.read();
        if (done) throw new Error("watch ended");
        buf += value;
      }
    },
  };
}

Deno.test("lifecycle: over HTTP, a namespace and a pod are created, the pod goes Running on watch, the namespace is deleted", async () => {
  const { objects, wireguard } = await loadBase("rome");
  const c = await startFakeCluster({ name: "rome", objects, wireguard, tls: false });
  const ns = "flyingfish-probe-http0001";
  const headers = { authorization: `Bearer ${c.token}`, "content-type": "application/json" };
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(c.url + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const watch = new AbortController();
  try {
    const created = await send("POST", "/api/v1/namespaces", {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: ns, labels: { "pod-security.kubernetes.io/enforce": "restricted" } },
    });
    assert.equal(created.status, 201);
    const res = await fetch(
      `${c.url}/api/v1/namespaces/${ns}/pods?watch=1&resourceVersion=${created.body.metadata.resourceVersion}`,
      {
        headers,
        signal: watch.signal,
      },
    );
    assert.equal(res.status, 200);
    const stream = events(res.body!);
    const pod = await send("POST", `/api/v1/namespaces/${ns}/pods`, {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "probe-rome-worker-2" },
      spec: {
        securityContext: { runAsNonRoot: true, runAsUser: 65534, seccompProfile: { type: "RuntimeDefault" } },
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{
                matchExpressions: [{
                  key: "kubernetes.io/hostname",
                  operator: "In",
                  values: ["rome-worker-2"],
                }],
              }],
            },
          },
        },
        containers: [{
          name: "probe",
          image: "registry.k8s.io/e2e-test-images/agnhost:2.53",
          securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
        }],
      },
    });
    assert.equal(pod.status, 201);

    const seen: { type: string; phase: unknown; node: unknown; rv: number }[] = [];
    for (;;) {
      const e = await stream.next();
      const status = e.object.status as { phase?: string } | undefined;
      seen.push({
        type: e.type,
        phase: status?.phase,
        node: (e.object.spec as { nodeName?: string }).nodeName,
        rv: Number(e.object.metadata.resourceVersion),
      });
      if (status?.phase === "Running") break;
    }
    assert.deepEqual(seen.map((s) => [s.type, s.phase, s.node]), [
      ["ADDED", "Pending", undefined],
      ["MODIFIED", "Pending", "rome-worker-2"],
      ["MODIFIED", "Running", "rome-worker-2"],
    ]);
    assert.ok(
      seen[0].rv < seen[1].rv && seen[1].rv < seen[2].rv,
      "every status change has a new resourceVersion",
    );
    const running = await send("GET", `/api/v1/namespaces/${ns}/pods/probe-rome-worker-2`);
    assert.match(running.body.status.podIP, /^10\.244\.2\.\d+$/);
    assert.equal(running.body.status.hostIP, "192.168.10.13");
    assert.ok(running.body.status.containerStatuses[0].ready);

    const del = await send("DELETE", `/api/v1/namespaces/${ns}`, { propagationPolicy: "Background" });
    assert.equal(del.status, 200);
    assert.equal(del.body.status.phase, "Terminating");
    const gone = await stream.next();
    assert.equal(gone.type, "DELETED");
    assert.equal(gone.object.metadata.name, "probe-rome-worker-2");
    for (let i = 0; (await send("GET", `/api/v1/namespaces/${ns}`)).status !== 404; i++) {
      assert.ok(i < 200, "namespace never went away");
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.deepEqual(c.objects().filter((o) => o.metadata.namespace === ns || o.metadata.name === ns), []);
    assert.deepEqual(
      c.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.path} ${r.status}`),
      [
        "POST /api/v1/namespaces 201",
        `POST /api/v1/namespaces/${ns}/pods 201`,
        `DELETE /api/v1/namespaces/${ns} 200`,
      ],
    );
  } finally {
    watch.abort();
    await c.close();
  }
});

Deno.test("lifecycle: a scenario's clusters.<name>.lifecycle reaches its fake server (testdata/active)", async () => {
  const s = await loadScenario("active/missing-rbac");
  assert.ok(s.dir.endsWith("/testdata/active/missing-rbac/"));
  assert.deepEqual((await buildClusterConfig(s, "rome")).lifecycle?.deny, ["create pods"]);
  assert.equal((await buildClusterConfig(s, "milan")).lifecycle, undefined);
  const served = await serveScenario(s, { tls: false });
  try {
    const review = async (cluster: string) => {
      const c = served.clusters[cluster]!;
      const res = await fetch(`${c.url}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, {
        method: "POST",
        headers: { authorization: `Bearer ${c.token}`, "content-type": "application/json" },
        body: JSON.stringify({
          spec: { resourceAttributes: { verb: "create", resource: "pods", namespace: "x" } },
        }),
      });
      return (await res.json()).status.allowed;
    };
    assert.equal(await review("rome"), false);
    assert.equal(await review("milan"), true);
  } finally {
    await served.close();
  }
});
