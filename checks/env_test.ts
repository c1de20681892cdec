import assert from "node:assert/strict";
import { ENV_CHECKS, expectedLiqoResources, parseKernel, parseSemver } from "./env.ts";
import type { CheckDef, Outcome } from "./types.ts";
import type { K8sObject } from "../kube/source.ts";
import type { DiscoveryOutcome } from "../kube/source.ts";
import {
  BASE_TIME,
  baseObjects,
  contextOf,
  find,
  inventoryOf,
  peersOf,
  viewOf,
} from "../tests/support/fixtures.ts";

const check = (id: string): CheckDef => ENV_CHECKS.find((c) => c.id === id)!;

async function run(
  id: string,
  objects: K8sObject[],
  opts: { discovery?: DiscoveryOutcome | null; remote?: K8sObject[] } = {},
): Promise<Outcome> {
  const view = viewOf(inventoryOf(objects, {}, opts.discovery ?? null));
  const remote = opts.remote ? viewOf(inventoryOf(opts.remote)) : null;
  const def = check(id);
  const peer = def.perPeer ? peersOf(view)[0] ?? null : null;
  const remotePeer = remote && def.perPeer ? peersOf(remote)[0] ?? null : null;
  return await def.run(contextOf(view, { peer, remote, remotePeer }));
}

const text = (o: Outcome): string => [o.summary, ...(o.evidence ?? []), o.remediation ?? ""].join("\n");

function fullDiscovery(drop: string[] = []): DiscoveryOutcome {
  const groups = [...expectedLiqoResources()].map(([gv, plurals]) => {
    const [group, version] = gv.split("/");
    return { group, version, resources: drop.includes(gv) ? [] : plurals.filter((p) => !drop.includes(p)) };
  });
  return { ok: true, groups };
}

function setCm(objects: K8sObject[], mutate: (args: string[]) => string[]): void {
  const cm = find(objects, "Deployment", "liqo-controller-manager", "liqo");
  const c = cm.spec.template.spec.containers[0];
  c.args = mutate(c.args);
}

function crashLoop(pod: K8sObject, message?: string): void {
  const cs = pod.status.containerStatuses[0];
  cs.ready = false;
  cs.restartCount = 9;
  cs.state = { waiting: { reason: "CrashLoopBackOff" } };
  cs.lastState = { terminated: { exitCode: 1, reason: "Error", ...(message ? { message } : {}) } };
}

// ---------------------------------------------------------------------------------------------
// ENV-01

Deno.test("ENV-01 passes on both healthy bases", async () => {
  for (const c of ["rome", "milan"] as const) {
    const o = await run("ENV-01", await baseObjects(c));
    assert.equal(o.status, "pass", o.summary);
    assert.match(o.summary, /7 Liqo components healthy in namespace liqo \(v1\.2\.0\)/);
  }
});

Deno.test("ENV-01 fails with an install hint when Liqo is absent", async () => {
  const objs = (await baseObjects("rome")).filter((o) =>
    o.kind === "Node" || o.metadata.namespace === "kube-system"
  );
  const o = await run("ENV-01", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /Liqo is not installed/);
  assert.match(o.remediation!, /liqoctl install/);
});

Deno.test("ENV-01 reports a partial install without controller-manager", async () => {
  const objs = (await baseObjects("rome")).filter((o) => o.metadata.name !== "liqo-controller-manager");
  const o = await run("ENV-01", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /controller-manager Deployment is missing in namespace liqo/);
});

Deno.test("ENV-01 lists a crash-looping ipam with ready/desired, restarts and last termination", async () => {
  const objs = await baseObjects("rome");
  find(objs, "Deployment", "liqo-ipam", "liqo").status.readyReplicas = 0;
  crashLoop(find(objs, "Pod", "liqo-ipam-7f9b8c6d54-tq8wn", "liqo"), "failed to initialize the IPAM");
  const o = await run("ENV-01", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /liqo-ipam/);
  const t = text(o);
  assert.match(t, /liqo\/liqo-ipam \(Deployment\): 0\/1 ready, 9 restarts/);
  assert.match(t, /CrashLoopBackOff/);
  assert.match(t, /Error \(exit 1\): failed to initialize the IPAM/);
  assert.match(o.remediation!, /kubectl -n liqo logs liqo-ipam-7f9b8c6d54-tq8wn -c ipam --previous/);
});

Deno.test("ENV-01 judges the fabric DaemonSet by ready/desired", async () => {
  const objs = await baseObjects("rome");
  find(objs, "DaemonSet", "liqo-fabric", "liqo").status.numberReady = 2;
  const o = await run("ENV-01", objs);
  assert.equal(o.status, "fail");
  assert.match(text(o), /liqo\/liqo-fabric \(DaemonSet\): 2\/3 ready/);
});

Deno.test("ENV-01 does not expect ipam/fabric with networking disabled, nor ipam with external IPAM", async () => {
  let objs = (await baseObjects("rome")).filter((o) =>
    !["liqo-ipam", "liqo-fabric"].includes(o.metadata.name) &&
    !o.metadata.name.startsWith("liqo-ipam-") && !o.metadata.name.startsWith("liqo-fabric-")
  );
  setCm(objs, (a) => a.map((x) => x === "--networking-enabled=true" ? "--networking-enabled=false" : x));
  let o = await run("ENV-01", objs);
  assert.equal(o.status, "pass", text(o));
  assert.match(text(o), /liqo-ipam not present: networking disabled/);

  objs = (await baseObjects("rome")).filter((o) => o.metadata.name !== "liqo-ipam");
  setCm(objs, (a) => a.map((x) => x.startsWith("--ipam-server=") ? "--ipam-server=ipam.infra.svc:6000" : x));
  o = await run("ENV-01", objs);
  assert.equal(o.status, "pass", text(o));
  assert.match(text(o), /external IPAM/);
});

Deno.test("ENV-01 fails on a missing required component and tolerates a missing optional one", async () => {
  const objs = (await baseObjects("rome")).filter((o) =>
    o.metadata.name !== "liqo-webhook" && o.metadata.name !== "liqo-metric-agent"
  );
  const o = await run("ENV-01", objs);
  assert.equal(o.status, "fail");
  assert.match(text(o), /liqo-webhook \(Deployment\): missing/);
  assert.doesNotMatch(o.summary, /metric-agent/);
});

Deno.test("ENV-01 survives workloads without status", async () => {
  const objs = await baseObjects("milan");
  delete find(objs, "Deployment", "liqo-proxy", "liqo").status;
  delete find(objs, "DaemonSet", "liqo-fabric", "liqo").status;
  const o = await run("ENV-01", objs);
  assert.equal(o.status, "fail");
  assert.match(text(o), /liqo-proxy \(Deployment\): 0\/1 ready/);
  assert.match(text(o), /schedules no pod/);
});

// ---------------------------------------------------------------------------------------------
// ENV-02

function retag(objects: K8sObject[], version: string): K8sObject[] {
  return JSON.parse(JSON.stringify(objects).replaceAll("v1.2.0", version));
}

Deno.test("ENV-02 passes with equal versions on both sides", async () => {
  const o = await run("ENV-02", await baseObjects("rome"), { remote: await baseObjects("milan") });
  assert.equal(o.status, "pass", text(o));
  assert.match(o.summary, /both clusters run Liqo v1\.2\.0/);
});

Deno.test("ENV-02 fails beyond patch and warns on patch differences", async () => {
  const rome = await baseObjects("rome"), milan = await baseObjects("milan");
  let o = await run("ENV-02", rome, { remote: retag(milan, "v1.1.2") });
  assert.equal(o.status, "fail");
  assert.match(o.summary, /beyond patch level: rome-4b2a9e v1\.2\.0, milan-8d1f03 v1\.1\.2/);
  assert.match(o.remediation!, /on milan-8d1f03 \(v1\.1\.2\)/);
  o = await run("ENV-02", rome, { remote: retag(milan, "v1.2.1") });
  assert.equal(o.status, "warn");
  assert.match(o.remediation!, /Align rome-4b2a9e on v1\.2\.1/);
});

Deno.test("ENV-02 warns when gateway images lag behind the controller-manager", async () => {
  const rome = await baseObjects("rome");
  const gw = find(rome, "Pod", "gw-milan-8d1f03-7c9d5b6f8d-q4xzt");
  for (const c of gw.spec.containers) c.image = c.image.replace("v1.2.0", "v1.1.2");
  const o = await run("ENV-02", rome, { remote: await baseObjects("milan") });
  assert.equal(o.status, "warn");
  assert.match(text(o), /gateway .* runs v1\.1\.2, controller-manager v1\.2\.0/);
});

Deno.test("ENV-02 is unknown for differing non-release tags and skips without a remote", async () => {
  const rome = await baseObjects("rome");
  let o = await run("ENV-02", rome, { remote: retag(await baseObjects("milan"), "3f9c2d1") });
  assert.equal(o.status, "unknown");
  o = await run("ENV-02", rome);
  assert.equal(o.status, "skip");
});

Deno.test("parseSemver", () => {
  assert.deepEqual(parseSemver("v1.2.0"), [1, 2, 0]);
  assert.deepEqual(parseSemver("1.10.3-rc.1"), [1, 10, 3]);
  assert.equal(parseSemver("3f9c2d1e"), null);
  assert.equal(parseSemver(null), null);
});

// ---------------------------------------------------------------------------------------------
// ENV-03

Deno.test("ENV-03 passes when every group and resource is served", async () => {
  const o = await run("ENV-03", await baseObjects("rome"), { discovery: fullDiscovery() });
  assert.equal(o.status, "pass", text(o));
});

Deno.test("ENV-03 fails listing a missing group and missing resources", async () => {
  const o = await run("ENV-03", await baseObjects("rome"), {
    discovery: fullDiscovery(["ipam.liqo.io/v1alpha1", "publickeies"]),
  });
  assert.equal(o.status, "fail");
  assert.match(text(o), /ipam\.liqo\.io\/v1alpha1: group\/version not served/);
  assert.match(text(o), /networking\.liqo\.io\/v1beta1: missing publickeies/);
});

Deno.test("ENV-03 is unknown without discovery and skips when Liqo is absent", async () => {
  const base = await baseObjects("rome");
  assert.equal((await run("ENV-03", base)).status, "unknown");
  const denied = await run("ENV-03", base, { discovery: { ok: false, reason: "forbidden", message: "403" } });
  assert.equal(denied.status, "unknown");
  assert.match(denied.summary, /forbidden/);
  const bare = base.filter((o) => o.kind === "Node");
  const o = await run("ENV-03", bare, { discovery: { ok: true, groups: [] } });
  assert.equal(o.status, "skip");
});

// ---------------------------------------------------------------------------------------------
// ENV-04

const ago = (ms: number): string => new Date(BASE_TIME.getTime() - ms).toISOString();

Deno.test("ENV-04 passes on healthy bases", async () => {
  for (const c of ["rome", "milan"] as const) {
    const o = await run("ENV-04", await baseObjects(c));
    assert.equal(o.status, "pass", text(o));
  }
});

Deno.test("ENV-04 warns on a tenant namespace stuck terminating without ForeignCluster", async () => {
  const objs = await baseObjects("milan");
  objs.push({
    apiVersion: "v1",
    kind: "Namespace",
    metadata: {
      name: "liqo-tenant-paris-1c2d3e",
      deletionTimestamp: ago(2 * 3600_000),
      labels: { "liqo.io/tenant-namespace": "true", "liqo.io/remote-cluster-id": "paris-1c2d3e" },
    },
    spec: { finalizers: ["kubernetes"] },
    status: {
      phase: "Terminating",
      conditions: [{
        type: "NamespaceFinalizersRemaining",
        status: "True",
        message:
          "Some content in the namespace has finalizers remaining: tenant.liqo.io/finalizer in 1 resource instances",
      }],
    },
  }, {
    apiVersion: "authentication.liqo.io/v1beta1",
    kind: "Tenant",
    metadata: {
      name: "paris-1c2d3e",
      namespace: "liqo-tenant-paris-1c2d3e",
      finalizers: ["tenant.liqo.io/finalizer"],
      labels: { "liqo.io/remote-cluster-id": "paris-1c2d3e" },
    },
    spec: { clusterID: "paris-1c2d3e" },
  });
  const o = await run("ENV-04", objs);
  assert.equal(o.status, "warn");
  const t = text(o);
  assert.match(
    t,
    /liqo-tenant-paris-1c2d3e: deleting for 2h0m, finalizers \[kubernetes\] \(no ForeignCluster paris-1c2d3e\)/,
  );
  assert.match(t, /tenant\.liqo\.io\/finalizer in 1 resource/);
  assert.match(o.remediation!, /patch tenants\.authentication\.liqo\.io paris-1c2d3e/);
});

Deno.test("ENV-04 ignores deletions younger than 5 minutes", async () => {
  const objs = await baseObjects("rome");
  const fc = find(objs, "ForeignCluster", "milan-8d1f03");
  fc.metadata.deletionTimestamp = ago(60_000);
  assert.equal((await run("ENV-04", objs)).status, "pass");
  fc.metadata.deletionTimestamp = ago(20 * 60_000);
  const o = await run("ENV-04", objs);
  assert.equal(o.status, "warn");
  assert.match(text(o), /ForeignCluster milan-8d1f03: deleting for 20m0s, finalizers \[api-server-checker/);
});

Deno.test("ENV-04 warns on the permanently-unreachable annotation and orphaned gateways", async () => {
  const objs = await baseObjects("rome");
  find(objs, "ForeignCluster", "milan-8d1f03").metadata.annotations = {
    "liqo.io/foreign-cluster-permanently-unreachable": "true",
  };
  const withoutClient = objs.filter((o) =>
    !(o.kind === "GatewayClient" && o.metadata.name === "milan-8d1f03")
  );
  const o = await run("ENV-04", withoutClient);
  assert.equal(o.status, "warn");
  assert.match(text(o), /permanently-unreachable/);
  assert.match(
    text(o),
    /gateway Deployment liqo-tenant-milan-8d1f03\/gw-milan-8d1f03: no GatewayServer\/GatewayClient/,
  );
});

Deno.test("ENV-04 warns on a tenant namespace whose peer has no ForeignCluster", async () => {
  const objs = (await baseObjects("milan")).filter((o) => o.kind !== "ForeignCluster");
  const o = await run("ENV-04", objs);
  assert.equal(o.status, "warn");
  assert.match(text(o), /no ForeignCluster for peer rome-4b2a9e/);
});

// ---------------------------------------------------------------------------------------------
// ENV-05

Deno.test("parseKernel reads distribution kernel strings", () => {
  assert.deepEqual(parseKernel("6.8.0-51-generic"), [6, 8, 0]);
  assert.deepEqual(parseKernel("5.4.0-1103-aws"), [5, 4, 0]);
  assert.deepEqual(parseKernel("4.18.0-553.el8_10.x86_64"), [4, 18, 0]);
  assert.deepEqual(parseKernel("5.10.0-28-cloud-amd64"), [5, 10, 0]);
  assert.deepEqual(parseKernel("6.1"), [6, 1, 0]);
  assert.equal(parseKernel("unknown"), null);
  assert.equal(parseKernel(undefined), null);
});

Deno.test("ENV-05 passes on healthy bases, fails per low node, ignores virtual nodes", async () => {
  for (const c of ["rome", "milan"] as const) {
    assert.equal((await run("ENV-05", await baseObjects(c))).status, "pass");
  }
  const objs = await baseObjects("rome");
  find(objs, "Node", "rome-worker-1").status.nodeInfo.kernelVersion = "5.4.0-150-generic";
  find(objs, "Node", "milan-8d1f03").status.nodeInfo = { kernelVersion: "4.0.0" };
  crashLoop(
    find(objs, "Pod", "liqo-fabric-m4q9d", "liqo"),
    "kernel version 5.4.0 does not satisfy the minimum requirements 5.10.0",
  );
  const o = await run("ENV-05", objs);
  assert.equal(o.status, "fail");
  assert.match(o.summary, /rome-worker-1/);
  assert.doesNotMatch(o.summary, /milan-8d1f03/);
  assert.match(
    text(o),
    /liqo\/liqo-fabric-m4q9d container fabric: .*does not satisfy the minimum requirements 5\.10\.0/,
  );
  assert.match(o.remediation!, /requirements\.kernel\.enabled=false/);
});

Deno.test("ENV-05 is unknown for unparsable kernels and skips with networking disabled", async () => {
  const objs = await baseObjects("milan");
  find(objs, "Node", "milan-worker-2").status.nodeInfo.kernelVersion = "";
  const o = await run("ENV-05", objs);
  assert.equal(o.status, "unknown");
  assert.match(text(o), /milan-worker-2: kernel version not reported/);
  const off = await baseObjects("milan");
  setCm(off, (a) => a.map((x) => x === "--networking-enabled=true" ? "--networking-enabled=false" : x));
  assert.equal((await run("ENV-05", off)).status, "skip");
});

// ---------------------------------------------------------------------------------------------
// ENV-06

Deno.test("ENV-06 passes on a kubeadm base", async () => {
  for (const c of ["rome", "milan"] as const) {
    assert.equal((await run("ENV-06", await baseObjects(c))).status, "pass");
  }
});

Deno.test("ENV-06 warns on OpenShift with networking, passes with networking disabled", async () => {
  const objs = await baseObjects("milan");
  find(objs, "Node", "milan-worker-1").status.nodeInfo.osImage = "Red Hat Enterprise Linux CoreOS 417.94";
  let o = await run("ENV-06", objs);
  assert.equal(o.status, "warn");
  assert.match(o.remediation!, /networking\.enabled=false/);
  setCm(objs, (a) => a.map((x) => x === "--networking-enabled=true" ? "--networking-enabled=false" : x));
  o = await run("ENV-06", objs);
  assert.equal(o.status, "pass");
});

Deno.test("ENV-06 K3s is informational", async () => {
  const objs = await baseObjects("rome");
  find(objs, "Node", "rome-cp-1").status.nodeInfo.kubeletVersion = "v1.31.4+k3s1";
  const o = await run("ENV-06", objs);
  assert.equal(o.status, "pass");
  assert.match(o.summary, /RemoteExec/);
});

Deno.test("ENV-06 GKE Dataplane V2 warns only with NodePort/LB Services in offloaded namespaces", async () => {
  const objs = await baseObjects("rome");
  for (const n of objs.filter((o) => o.kind === "Node")) {
    n.metadata.labels = { ...n.metadata.labels, "cloud.google.com/gke-nodepool": "default-pool" };
  }
  objs.push({
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: "anetd", namespace: "kube-system" },
  });
  assert.equal((await run("ENV-06", objs)).status, "pass");
  find(objs, "Service", "web", "demo").spec.type = "LoadBalancer";
  const o = await run("ENV-06", objs);
  assert.equal(o.status, "warn");
  assert.match(text(o), /Service demo\/web: LoadBalancer in an offloaded namespace/);
});

Deno.test("ENV-06 EKS notes offloaded namespaces (no warning) and warns on external IP remapping", async () => {
  const objs = await baseObjects("rome");
  find(objs, "Node", "rome-worker-1").metadata.labels!["eks.amazonaws.com/nodegroup"] = "ng-1";
  const o = await run("ENV-06", objs);
  assert.equal(o.status, "pass");
  assert.match(o.summary, /EKS: offloaded pods that call the home API server/);
  assert.match(text(o), /CrossClusterAPIServerInteraction/);
  objs.push({
    apiVersion: "ipam.liqo.io/v1alpha1",
    kind: "IP",
    metadata: { name: "external-db", namespace: "demo" },
    spec: { ip: "192.0.2.10" },
    status: { ip: "10.70.0.9", cidr: "10.70.0.0/16" },
  });
  const withIp = await run("ENV-06", objs);
  assert.equal(withIp.status, "warn");
  assert.match(withIp.summary, /ExternalIPRemapping/);
  const provider = await baseObjects("milan");
  find(provider, "Node", "milan-worker-1").metadata.labels!["eks.amazonaws.com/nodegroup"] = "ng-1";
  assert.equal((await run("ENV-06", provider)).status, "pass");
});

Deno.test("ENV catalog entries are well formed", () => {
  for (const c of ENV_CHECKS) {
    assert.equal(c.layer, "env");
    assert.ok(c.explain.reads && c.explain.decides && c.explain.fixes, c.id);
  }
  assert.deepEqual(check("ENV-01").needs, ["ENV-05", "ENV-03"]);
});
