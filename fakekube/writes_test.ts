import assert from "node:assert/strict";
import type { K8sObject } from "./object.ts";
import { type FakeCluster, startFakeCluster } from "./server.ts";
import { loadBase } from "./scenario.ts";
import type { LifecycleInput } from "./lifecycle.ts";

/** The rome base cluster (3 nodes + the virtual node milan-8d1f03), with fast lifecycle delays. */
async function rome(lifecycle: LifecycleInput = {}, extra: { forbid?: string[] } = {}): Promise<FakeCluster> {
  const { objects, wireguard } = await loadBase("rome");
  return await startFakeCluster({
    name: "rome",
    objects,
    wireguard,
    tls: false,
    forbid: extra.forbid,
    lifecycle: {
      scheduleDelayMs: 5,
      startDelayMs: 5,
      backOffDelayMs: 10,
      namespaceDeleteDelayMs: 20,
      offloadingReadyDelayMs: 5,
      ...lifecycle,
    },
  });
}

interface Answer {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
}

async function call(c: FakeCluster, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(c.url + path, {
    method,
    headers: { authorization: `Bearer ${c.token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** Polls GET `path` until `done(body)` (or fails after 3 s). */
async function until(c: FakeCluster, path: string, done: (a: Answer) => boolean): Promise<Answer> {
  const deadline = Date.now() + 3000;
  for (;;) {
    const a = await call(c, "GET", path);
    if (done(a)) return a;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting on ${path}: ${JSON.stringify(a.body).slice(0, 400)}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

const ns = (name: string, labels: Record<string, string> = {}): K8sObject => ({
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name, labels },
});

/** A probe pod that passes `restricted`, pinned to `node`. */
function probePod(
  name: string,
  node: string,
  image = "registry.k8s.io/e2e-test-images/agnhost:2.53",
): K8sObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, labels: { app: "probe" } },
    spec: {
      terminationGracePeriodSeconds: 1,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: 65534,
        seccompProfile: { type: "RuntimeDefault" },
        sysctls: [{ name: "net.ipv4.ping_group_range", value: "0 2147483647" }],
      },
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{
              matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: [node] }],
            }],
          },
        },
      },
      containers: [{
        name: "probe",
        image,
        args: ["netexec", "--http-port=8080", "--udp-port=8081"],
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
      }],
    },
  };
}

const running = (a: Answer): boolean => a.status === 200 && a.body.status?.phase === "Running";
const names = (c: FakeCluster, kind: string, namespace?: string): string[] =>
  c.objects().filter((o) =>
    o.kind === kind && (namespace === undefined || o.metadata.namespace === namespace)
  )
    .map((o) => o.metadata.name);

Deno.test("writes: create a namespace, dryRun, 409 AlreadyExists, 404 for a missing namespace", async () => {
  const c = await rome();
  try {
    const created = await call(c, "POST", "/api/v1/namespaces", ns("flyingfish-probe-ab12cd34"));
    assert.equal(created.status, 201);
    assert.equal(created.body.kind, "Namespace");
    assert.match(created.body.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.match(created.body.metadata.resourceVersion, /^\d+$/);
    assert.match(created.body.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(created.body.metadata.labels["kubernetes.io/metadata.name"], "flyingfish-probe-ab12cd34");
    assert.equal(created.body.status.phase, "Active");
    // Runtime objects are served like the base ones.
    const got = await call(c, "GET", "/api/v1/namespaces/flyingfish-probe-ab12cd34");
    assert.deepEqual(got.body, created.body);
    const list = await call(c, "GET", "/api/v1/namespaces");
    assert.ok(list.body.items.some((n: K8sObject) => n.metadata.name === "flyingfish-probe-ab12cd34"));
    assert.equal(list.body.metadata.resourceVersion, created.body.metadata.resourceVersion);
    assert.ok(names(c, "Namespace").includes("flyingfish-probe-ab12cd34"));

    const again = await call(c, "POST", "/api/v1/namespaces", ns("flyingfish-probe-ab12cd34"));
    assert.equal(again.status, 409);
    assert.deepEqual(again.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'namespaces "flyingfish-probe-ab12cd34" already exists',
      reason: "AlreadyExists",
      details: { name: "flyingfish-probe-ab12cd34", kind: "namespaces" },
      code: 409,
    });

    const dry = await call(c, "POST", "/api/v1/namespaces?dryRun=All", ns("flyingfish-probe-dry"));
    assert.equal(dry.status, 201);
    assert.equal(dry.body.metadata.name, "flyingfish-probe-dry");
    assert.equal(dry.body.metadata.resourceVersion, undefined);
    assert.ok(!names(c, "Namespace").includes("flyingfish-probe-dry"));

    const missing = await call(c, "POST", "/api/v1/namespaces/nope/pods", probePod("p", "rome-worker-1"));
    assert.equal(missing.status, 404);
    assert.equal(missing.body.message, 'namespaces "nope" not found');
    assert.deepEqual(missing.body.details, { name: "nope", kind: "namespaces" });

    const badName = await call(c, "POST", "/api/v1/namespaces", ns("Not_A_Label"));
    assert.equal(badName.status, 422);
    assert.equal(badName.body.reason, "Invalid");
    // Updates are not served; every write is in the request log.
    assert.equal((await call(c, "PUT", "/api/v1/namespaces/flyingfish-probe-ab12cd34", {})).status, 405);
    assert.deepEqual(
      c.requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.status}`),
      ["POST 201", "POST 409", "POST 201", "POST 404", "POST 422", "PUT 405"],
    );
  } finally {
    await c.close();
  }
});

Deno.test("writes: Pod Security restricted rejects with the real message; dryRun passes the probe pod", async () => {
  const c = await rome();
  try {
    const name = "flyingfish-probe-psa00001";
    await call(
      c,
      "POST",
      "/api/v1/namespaces",
      ns(name, { "pod-security.kubernetes.io/enforce": "restricted" }),
    );
    const bad: K8sObject = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "x" },
      spec: { containers: [{ name: "probe", image: "agnhost" }] },
    };
    const rejected = await call(c, "POST", `/api/v1/namespaces/${name}/pods?dryRun=All`, bad);
    assert.equal(rejected.status, 403);
    assert.equal(rejected.body.reason, "Forbidden");
    assert.match(
      rejected.body.message,
      /^pods "x" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false \(container "probe" must set securityContext\.allowPrivilegeEscalation=false\), unrestricted capabilities/,
    );
    const dry = await call(
      c,
      "POST",
      `/api/v1/namespaces/${name}/pods?dryRun=All`,
      probePod("probe-a", "rome-worker-1"),
    );
    assert.equal(dry.status, 201);
    assert.equal(dry.body.status.phase, "Pending");
    assert.deepEqual(names(c, "Pod", name), []);

    // The cluster default applies to namespaces without the label.
    const strict = await rome({ podSecurity: "restricted" });
    try {
      await call(strict, "POST", "/api/v1/namespaces", ns("plain"));
      assert.equal((await call(strict, "POST", "/api/v1/namespaces/plain/pods", bad)).status, 403);
      await call(
        strict,
        "POST",
        "/api/v1/namespaces",
        ns("open", { "pod-security.kubernetes.io/enforce": "privileged" }),
      );
      assert.equal((await call(strict, "POST", "/api/v1/namespaces/open/pods", bad)).status, 201);
    } finally {
      await strict.close();
    }
  } finally {
    await c.close();
  }
});

Deno.test("writes: SelfSubjectAccessReview and 403s from the permission table", async () => {
  const c = await rome({ deny: ["create pods", "delete namespaces"] }, { forbid: ["pods/exec"] });
  try {
    const review = async (attrs: Record<string, string>) =>
      await call(c, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectAccessReview",
        spec: { resourceAttributes: attrs },
      });
    const ok = await review({ verb: "create", resource: "namespaces" });
    assert.equal(ok.status, 201);
    assert.deepEqual(ok.body.status, { allowed: true });
    assert.equal(ok.body.kind, "SelfSubjectAccessReview");
    const pods = await review({ verb: "create", resource: "pods", namespace: "flyingfish-probe-x" });
    assert.equal(pods.body.status.allowed, false);
    assert.match(pods.body.status.reason, /"create" on "pods" in namespace "flyingfish-probe-x"/);
    const exec = await review({ verb: "create", resource: "pods", subresource: "exec", namespace: "x" });
    assert.equal(exec.body.status.allowed, false);
    assert.equal((await review({ verb: "delete", resource: "namespaces" })).body.status.allowed, false);
    assert.equal(
      (await review({
        verb: "create",
        resource: "namespaceoffloadings",
        group: "offloading.liqo.io",
        namespace: "x",
      }))
        .body.status.allowed,
      true,
    );

    await call(c, "POST", "/api/v1/namespaces", ns("flyingfish-probe-x"));
    const denied = await call(
      c,
      "POST",
      "/api/v1/namespaces/flyingfish-probe-x/pods",
      probePod("p", "rome-worker-1"),
    );
    assert.equal(denied.status, 403);
    assert.equal(
      denied.body.message,
      'pods is forbidden: User "flyingfish" cannot create resource "pods" in API group "" in the namespace "flyingfish-probe-x"',
    );
    const del = await call(c, "DELETE", "/api/v1/namespaces/flyingfish-probe-x");
    assert.equal(del.status, 403);
    assert.equal(
      del.body.message,
      'namespaces "flyingfish-probe-x" is forbidden: User "flyingfish" cannot delete resource "namespaces" in API group "" at the cluster scope',
    );
  } finally {
    await c.close();
  }
});

Deno.test("writes: namespace delete goes Terminating, then is gone with its content", async () => {
  const c = await rome();
  try {
    const name = "flyingfish-probe-del00001";
    await call(c, "POST", "/api/v1/namespaces", ns(name));
    await call(c, "POST", `/api/v1/namespaces/${name}/pods`, probePod("probe-a", "rome-worker-1"));
    await until(c, `/api/v1/namespaces/${name}/pods/probe-a`, running);
    const del = await call(c, "DELETE", `/api/v1/namespaces/${name}?propagationPolicy=Background`);
    assert.equal(del.status, 200);
    assert.equal(del.body.status.phase, "Terminating");
    assert.ok(del.body.metadata.deletionTimestamp);
    const inTerminating = await call(
      c,
      "POST",
      `/api/v1/namespaces/${name}/pods`,
      probePod("probe-b", "rome-worker-2"),
    );
    assert.equal(inTerminating.status, 403);
    assert.equal(
      inTerminating.body.message,
      `pods "probe-b" is forbidden: unable to create new content in namespace ${name} because it is being terminated`,
    );
    const twice = await call(c, "DELETE", `/api/v1/namespaces/${name}`);
    assert.equal(twice.status, 409);
    assert.equal(twice.body.reason, "Conflict");
    await until(c, `/api/v1/namespaces/${name}`, (a) => a.status === 404);
    assert.deepEqual(
      c.objects().filter((o) => o.metadata.namespace === name || o.metadata.name === name),
      [],
    );
    const gone = await call(c, "DELETE", `/api/v1/namespaces/${name}`);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.message, `namespaces "${name}" not found`);
  } finally {
    await c.close();
  }
});

Deno.test("writes: a stuck namespace stays Terminating with realistic conditions", async () => {
  const c = await rome({ namespaceStuck: true });
  try {
    const name = "flyingfish-probe-stuck001";
    await call(c, "POST", "/api/v1/namespaces", ns(name));
    await call(c, "POST", `/api/v1/namespaces/${name}/pods`, probePod("probe-a", "rome-worker-1"));
    await call(c, "POST", `/api/v1/namespaces/${name}/configmaps`, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "held", finalizers: ["example.com/never"] },
    });
    assert.equal((await call(c, "DELETE", `/api/v1/namespaces/${name}`)).status, 200);
    const stuck = await until(
      c,
      `/api/v1/namespaces/${name}`,
      (a) => (a.body.status?.conditions ?? []).length > 0,
    );
    assert.equal(stuck.body.status.phase, "Terminating");
    const byType = Object.fromEntries(
      stuck.body.status.conditions.map((x: { type: string; message: string }) => [x.type, x.message]),
    );
    assert.equal(
      byType.NamespaceContentRemaining,
      "Some resources are remaining: configmaps has 1 resource instances",
    );
    assert.equal(
      byType.NamespaceFinalizersRemaining,
      "Some content in the namespace has finalizers remaining: example.com/never in 1 resource instances",
    );
    assert.deepEqual(names(c, "Pod", name), []);
    assert.deepEqual(names(c, "ConfigMap", name), ["held"]);

    // A NamespaceOffloading left in a stuck namespace keeps Liqo's finalizer.
    const off = "flyingfish-probe-stuck003";
    await call(c, "POST", "/api/v1/namespaces", ns(off));
    const nsoPath = `/apis/offloading.liqo.io/v1beta1/namespaces/${off}/namespaceoffloadings`;
    await call(c, "POST", nsoPath, {
      apiVersion: "offloading.liqo.io/v1beta1",
      kind: "NamespaceOffloading",
      metadata: { name: "offloading" },
      spec: {},
    });
    await until(c, `${nsoPath}/offloading`, (a) => (a.body.metadata?.finalizers ?? []).length > 0);
    await call(c, "DELETE", `/api/v1/namespaces/${off}`);
    const s3 = await until(
      c,
      `/api/v1/namespaces/${off}`,
      (a) => (a.body.status?.conditions ?? []).length > 0,
    );
    assert.ok(s3.body.status.conditions.some((x: { message: string }) =>
      x.message ===
        "Some content in the namespace has finalizers remaining: namespaceoffloading-controller.liqo.io/finalizer in 1 resource instances"
    ));

    // Nothing with a finalizer inside: the namespace is stuck on discovery, as with a broken aggregated API.
    const empty = "flyingfish-probe-stuck002";
    await call(c, "POST", "/api/v1/namespaces", ns(empty));
    await call(c, "DELETE", `/api/v1/namespaces/${empty}`);
    const s2 = await until(
      c,
      `/api/v1/namespaces/${empty}`,
      (a) => (a.body.status?.conditions ?? []).length > 0,
    );
    const failure = s2.body.status.conditions.find((x: { type: string }) =>
      x.type === "NamespaceDeletionDiscoveryFailure"
    );
    assert.equal(failure.status, "True");
    assert.equal(failure.reason, "DiscoveryFailed");
  } finally {
    await c.close();
  }
});

Deno.test("writes: pod delete, 404 and generic custom resources", async () => {
  const c = await rome();
  try {
    const name = "flyingfish-probe-pod00001";
    await call(c, "POST", "/api/v1/namespaces", ns(name));
    const created = await call(c, "POST", `/api/v1/namespaces/${name}/pods`, {
      ...probePod("", "rome-worker-2"),
      metadata: { generateName: "probe-" },
    });
    assert.equal(created.status, 201);
    const pod = created.body.metadata.name;
    assert.match(pod, /^probe-[a-z0-9]{5}$/);
    const del = await call(c, "DELETE", `/api/v1/namespaces/${name}/pods/${pod}`);
    assert.equal(del.status, 200);
    assert.ok(del.body.metadata.deletionTimestamp);
    assert.deepEqual(names(c, "Pod", name), []);
    assert.equal((await call(c, "DELETE", `/api/v1/namespaces/${name}/pods/${pod}`)).status, 404);
    // Any served kind can be created in a namespace.
    const nso = await call(
      c,
      "POST",
      `/apis/offloading.liqo.io/v1beta1/namespaces/${name}/namespaceoffloadings`,
      {
        apiVersion: "offloading.liqo.io/v1beta1",
        kind: "NamespaceOffloading",
        metadata: { name: "offloading" },
        spec: {},
      },
    );
    assert.equal(nso.status, 201);
    assert.equal(nso.body.spec.podOffloadingStrategy, "LocalAndRemote");
    assert.equal(nso.body.metadata.generation, 1);
    const unknown = await call(c, "POST", `/apis/example.com/v1/namespaces/${name}/widgets`, {});
    assert.equal(unknown.status, 404);
  } finally {
    await c.close();
  }
});

Deno.test("writes: offloaded pods get IPs from the remapped remote pod CIDR once the offloading is Ready", async () => {
  const c = await rome();
  try {
    const name = "flyingfish-probe-off00001";
    await call(c, "POST", "/api/v1/namespaces", ns(name));
    await call(c, "POST", `/apis/offloading.liqo.io/v1beta1/namespaces/${name}/namespaceoffloadings`, {
      apiVersion: "offloading.liqo.io/v1beta1",
      kind: "NamespaceOffloading",
      metadata: { name: "offloading" },
      spec: {
        namespaceMappingStrategy: "DefaultName",
        podOffloadingStrategy: "LocalAndRemote",
        clusterSelector: {
          nodeSelectorTerms: [{
            matchExpressions: [{
              key: "liqo.io/remote-cluster-id",
              operator: "In",
              values: ["milan-8d1f03"],
            }],
          }],
        },
      },
    });
    const ready = await until(
      c,
      `/apis/offloading.liqo.io/v1beta1/namespaces/${name}/namespaceoffloadings/offloading`,
      (a) => a.body.status?.offloadingPhase === "Ready",
    );
    assert.equal(ready.body.status.remoteNamespaceName, `${name}-rome-4b2a9e`);
    assert.deepEqual(
      ready.body.status.remoteNamespacesConditions["milan-8d1f03"].map((x: { type: string }) => x.type),
      ["OffloadingRequired", "Ready"],
    );
    const nsObj = await call(c, "GET", `/api/v1/namespaces/${name}`);
    assert.equal(nsObj.body.metadata.labels["liqo.io/scheduling-enabled"], "true");

    for (const p of ["probe-r1", "probe-r2"]) {
      assert.equal(
        (await call(c, "POST", `/api/v1/namespaces/${name}/pods`, probePod(p, "milan-8d1f03"))).status,
        201,
      );
    }
    await call(c, "POST", `/api/v1/namespaces/${name}/pods`, probePod("probe-l1", "rome-worker-1"));
    const ips: Record<string, string> = {};
    for (const p of ["probe-r1", "probe-r2", "probe-l1"]) {
      const a = await until(c, `/api/v1/namespaces/${name}/pods/${p}`, running);
      ips[p] = a.body.status.podIP;
      assert.equal(a.body.spec.nodeName, p === "probe-l1" ? "rome-worker-1" : "milan-8d1f03");
    }
    // rome's Configuration for milan: status.remote.cidr.pod = 10.71.0.0/16; rome-worker-1 has 10.244.1.0/24.
    assert.deepEqual([ips["probe-r1"], ips["probe-r2"]].sort(), ["10.71.0.2", "10.71.0.3"]);
    assert.match(ips["probe-l1"], /^10\.244\.1\.\d+$/);
    assert.notEqual(ips["probe-l1"], "10.244.1.12"); // taken by a base pod

    // Deleting the offloading: Liqo's finalizer, phase Terminating, then gone and the namespace unlabelled.
    const nsoPath = `/apis/offloading.liqo.io/v1beta1/namespaces/${name}/namespaceoffloadings/offloading`;
    assert.deepEqual((await call(c, "GET", nsoPath)).body.metadata.finalizers, [
      "namespaceoffloading-controller.liqo.io/finalizer",
    ]);
    const del = await call(c, "DELETE", nsoPath);
    assert.equal(del.status, 200);
    assert.ok(del.body.metadata.deletionTimestamp);
    assert.equal(del.body.status.offloadingPhase, "Terminating");
    await until(c, nsoPath, (a) => a.status === 404);
    const unlabelled = await call(c, "GET", `/api/v1/namespaces/${name}`);
    assert.equal(unlabelled.body.metadata.labels["liqo.io/scheduling-enabled"], undefined);
  } finally {
    await c.close();
  }
});

Deno.test("writes: image pull failures and Unschedulable pods carry the kubelet/scheduler reasons", async () => {
  const c = await rome({ imagePullFailures: ["agnhost:0.0-missing"] });
  try {
    const name = "flyingfish-probe-fail0001";
    await call(c, "POST", "/api/v1/namespaces", ns(name));
    const image = "registry.k8s.io/e2e-test-images/agnhost:0.0-missing";
    await call(c, "POST", `/api/v1/namespaces/${name}/pods`, probePod("bad-image", "rome-worker-1", image));
    const errPull = await until(
      c,
      `/api/v1/namespaces/${name}/pods/bad-image`,
      (a) => a.body.status?.containerStatuses?.[0]?.state?.waiting !== undefined,
    );
    assert.equal(errPull.body.status.phase, "Pending");
    const waiting = errPull.body.status.containerStatuses[0].state.waiting;
    assert.ok(["ErrImagePull", "ImagePullBackOff"].includes(waiting.reason));
    const backOff = await until(
      c,
      `/api/v1/namespaces/${name}/pods/bad-image`,
      (a) => a.body.status?.containerStatuses?.[0]?.state?.waiting?.reason === "ImagePullBackOff",
    );
    assert.equal(
      backOff.body.status.containerStatuses[0].state.waiting.message,
      `Back-off pulling image "${image}"`,
    );
    const ready = backOff.body.status.conditions.find((x: { type: string }) => x.type === "Ready");
    assert.deepEqual([ready.status, ready.reason, ready.message], [
      "False",
      "ContainersNotReady",
      "containers with unready status: [probe]",
    ]);

    await call(c, "POST", `/api/v1/namespaces/${name}/pods`, probePod("on-cp", "rome-cp-1"));
    const unsched = await until(
      c,
      `/api/v1/namespaces/${name}/pods/on-cp`,
      (a) => (a.body.status?.conditions ?? []).some((x: { reason?: string }) => x.reason === "Unschedulable"),
    );
    const cond = unsched.body.status.conditions[0];
    assert.equal(cond.type, "PodScheduled");
    assert.equal(cond.status, "False");
    assert.equal(
      cond.message,
      "0/4 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, " +
        "1 node(s) had untolerated taint {virtual-node.liqo.io/not-allowed: true}, 2 node(s) didn't match Pod's node " +
        "affinity/selector. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.",
    );
    assert.equal(unsched.body.spec.nodeName, undefined);
  } finally {
    await c.close();
  }
});

Deno.test("writes: a Service gets a ClusterIP and an EndpointSlice that follows its pods", async () => {
  const c = await rome();
  try {
    const name = "flyingfish-probe-svc00001";
    await call(c, "POST", "/api/v1/namespaces", ns(name));
    const svc = await call(c, "POST", `/api/v1/namespaces/${name}/services`, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "probe" },
      spec: { selector: { app: "probe" }, ports: [{ name: "http", port: 80, targetPort: 8080 }] },
    });
    assert.equal(svc.status, 201);
    assert.match(svc.body.spec.clusterIP, /^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    await call(c, "POST", `/api/v1/namespaces/${name}/pods`, probePod("probe-a", "rome-worker-1"));
    await call(c, "POST", `/api/v1/namespaces/${name}/pods`, probePod("probe-b", "rome-worker-2"));
    const slices = await until(
      c,
      `/apis/discovery.k8s.io/v1/namespaces/${name}/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dprobe`,
      (a) =>
        a.body.items?.[0]?.endpoints?.filter((e: { conditions: { ready: boolean } }) => e.conditions.ready)
          .length === 2,
    );
    const slice = slices.body.items[0];
    assert.deepEqual(slice.ports, [{ name: "http", port: 8080, protocol: "TCP" }]);
    assert.deepEqual(slice.endpoints.map((e: { nodeName: string }) => e.nodeName).sort(), [
      "rome-worker-1",
      "rome-worker-2",
    ]);
    await call(c, "DELETE", `/api/v1/namespaces/${name}/pods/probe-b`);
    const after = await call(c, "GET", `/apis/discovery.k8s.io/v1/namespaces/${name}/endpointslices`);
    assert.deepEqual(
      after.body.items[0].endpoints.map((e: { targetRef: { name: string } }) => e.targetRef.name),
      ["probe-a"],
    );
  } finally {
    await c.close();
  }
});
