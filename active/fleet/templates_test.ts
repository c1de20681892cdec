import assert from "node:assert/strict";
import { podSecurityViolations, SAFE_SYSCTLS, validate } from "../../fakekube/mod.ts";
import type { K8sObject } from "../../kube/source.ts";
import { netexecArgs } from "../commands.ts";
import { PROBE_IMAGES } from "./images.ts";
import {
  dnsLabel,
  namespaceManifest,
  namespaceOffloadingManifest,
  offloadedPodManifest,
  preflightPodManifest,
  preflightServiceManifest,
  probePodManifest,
  probePodName,
  serviceManifest,
} from "./templates.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Sysctls Pod Security `baseline` (and so `restricted`) allows (the fake's admission list). */
const SAFE = new Set(SAFE_SYSCTLS);
const RESTRICTED_VOLUMES = new Set([
  "configMap",
  "csi",
  "downwardAPI",
  "emptyDir",
  "ephemeral",
  "persistentVolumeClaim",
  "projected",
  "secret",
]);

/**
 * What Pod Security `restricted` (latest) would refuse in a pod: the baseline rules (host
 * namespaces, privileged, added capabilities, hostPath, host ports, sysctls, seccomp Unconfined,
 * proc mount) and the restricted ones (volume types, allowPrivilegeEscalation=false, runAsNonRoot,
 * runAsUser ≠ 0, seccomp RuntimeDefault/Localhost, drop ALL, add only NET_BIND_SERVICE).
 */
function restrictedViolations(pod: K8sObject): string[] {
  const spec: Json = pod.spec ?? {};
  const out: string[] = [];
  const psc: Json = spec.securityContext ?? {};
  for (const f of ["hostNetwork", "hostPID", "hostIPC"]) if (spec[f]) out.push(`${f}=true`);
  for (const s of psc.sysctls ?? []) if (!SAFE.has(s.name)) out.push(`forbidden sysctl ${s.name}`);
  for (const v of spec.volumes ?? []) {
    const type = Object.keys(v).find((k) => k !== "name");
    if (!type || !RESTRICTED_VOLUMES.has(type)) out.push(`volume ${v.name} of type ${type}`);
  }
  const containers: Json[] = [
    ...(spec.initContainers ?? []),
    ...(spec.containers ?? []),
    ...(spec.ephemeralContainers ?? []),
  ];
  if (containers.length === 0) out.push("no containers");
  const podSeccomp = psc.seccompProfile?.type;
  if (podSeccomp === "Unconfined") out.push("pod seccompProfile Unconfined");
  if (psc.runAsUser === 0) out.push("pod runAsUser=0");
  for (const c of containers) {
    const sc: Json = c.securityContext ?? {};
    const n = `container ${c.name}`;
    if (sc.privileged) out.push(`${n} privileged`);
    if (sc.allowPrivilegeEscalation !== false) out.push(`${n} allowPrivilegeEscalation != false`);
    if (sc.runAsNonRoot !== true && !(psc.runAsNonRoot === true && sc.runAsNonRoot !== false)) {
      out.push(`${n} runAsNonRoot != true`);
    }
    if (sc.runAsUser === 0) out.push(`${n} runAsUser=0`);
    const seccomp = sc.seccompProfile?.type ?? podSeccomp;
    if (seccomp !== "RuntimeDefault" && seccomp !== "Localhost") out.push(`${n} seccompProfile ${seccomp}`);
    const drop: string[] = sc.capabilities?.drop ?? [];
    if (!drop.includes("ALL")) out.push(`${n} does not drop ALL capabilities`);
    for (const cap of sc.capabilities?.add ?? []) {
      if (cap !== "NET_BIND_SERVICE") out.push(`${n} adds ${cap}`);
    }
    for (const p of c.ports ?? []) if (p.hostPort) out.push(`${n} hostPort ${p.hostPort}`);
    if (sc.procMount && sc.procMount !== "Default") out.push(`${n} procMount ${sc.procMount}`);
  }
  return out;
}

const IMAGE = PROBE_IMAGES.probe;

Deno.test("restrictedViolations catches what Pod Security restricted refuses", () => {
  const bad: K8sObject = {
    metadata: { name: "bad" },
    spec: {
      hostNetwork: true,
      securityContext: { sysctls: [{ name: "net.ipv4.ip_forward", value: "1" }] },
      volumes: [{ name: "h", hostPath: { path: "/" } }],
      containers: [{
        name: "c",
        securityContext: { capabilities: { add: ["NET_RAW"] } },
        ports: [{ hostPort: 80 }],
      }],
    },
  };
  const v = restrictedViolations(bad);
  for (
    const want of [
      "hostNetwork=true",
      "forbidden sysctl net.ipv4.ip_forward",
      "volume h of type hostPath",
      "container c allowPrivilegeEscalation != false",
      "container c runAsNonRoot != true",
      "container c seccompProfile undefined",
      "container c does not drop ALL capabilities",
      "container c adds NET_RAW",
      "container c hostPort 80",
    ]
  ) assert.ok(v.includes(want), `${want} not in ${JSON.stringify(v)}`);
});

Deno.test("probePodManifest passes Pod Security restricted and pins its node through the scheduler", () => {
  const pod = probePodManifest({
    runId: "ab12cd34",
    node: "rome-worker-1",
    image: IMAGE,
    tolerate: [],
    side: "local",
  });
  assert.deepEqual(restrictedViolations(pod), []);
  const spec: Json = pod.spec;
  assert.equal(pod.metadata.name, "ff-probe-rome-worker-1");
  assert.equal(pod.metadata.namespace, "flyingfish-probe-ab12cd34");
  assert.deepEqual(pod.metadata.labels, {
    "app.kubernetes.io/managed-by": "flyingfish",
    "flyingfish.io/run-id": "ab12cd34",
    "app.kubernetes.io/component": "probe",
    "flyingfish.io/node": "rome-worker-1",
  });
  assert.equal(spec.nodeName, undefined, "placement goes through the scheduler");
  assert.deepEqual(
    spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms,
    [
      { matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: ["rome-worker-1"] }] },
    ],
  );
  assert.equal(spec.tolerations, undefined, "no toleration without --tolerate");
  assert.equal(spec.automountServiceAccountToken, false);
  assert.equal(spec.enableServiceLinks, false);
  assert.equal(spec.terminationGracePeriodSeconds, 1);
  assert.equal(spec.securityContext.runAsUser, 65534);
  assert.deepEqual(spec.securityContext.sysctls, [{
    name: "net.ipv4.ping_group_range",
    value: "0 2147483647",
  }]);
  const [c] = spec.containers;
  assert.equal(spec.containers.length, 1);
  assert.equal(c.name, "probe");
  assert.equal(c.image, IMAGE);
  assert.deepEqual(c.args, netexecArgs());
  assert.equal(c.securityContext.readOnlyRootFilesystem, true);
  assert.ok(c.resources.requests.cpu && c.resources.limits.memory);
});

Deno.test("probePodManifest: --tolerate keys become Exists tolerations; the hostname label is matched", () => {
  const pod = probePodManifest({
    runId: "ab12cd34",
    node: "ip-10-0-1-23.ec2.internal",
    hostname: "ip-10-0-1-23",
    image: IMAGE,
    tolerate: ["nvidia.com/gpu", "nvidia.com/gpu", "dedicated"],
    side: "remote",
  });
  const spec: Json = pod.spec;
  assert.deepEqual(spec.tolerations, [
    { key: "nvidia.com/gpu", operator: "Exists" },
    { key: "dedicated", operator: "Exists" },
  ]);
  assert.equal(
    spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]
      .matchExpressions[0]
      .values[0],
    "ip-10-0-1-23",
  );
  assert.equal(pod.metadata.name, "ff-probe-ip-10-0-1-23-ec2-internal");
  assert.deepEqual(restrictedViolations(pod), []);
});

Deno.test("probe pod names are DNS labels of at most 63 characters, distinct for long similar nodes", () => {
  const a = "gke-production-cluster-europe-west1-default-pool-1a2b3c4d-node-aaaa";
  const b = "gke-production-cluster-europe-west1-default-pool-1a2b3c4d-node-bbbb";
  for (const n of [a, b, "Node_With.Odd--Chars", "x"]) {
    const name = probePodName(n);
    assert.ok(name.length <= 63, name);
    assert.match(name, /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/);
  }
  assert.notEqual(probePodName(a), probePodName(b));
  assert.equal(probePodName("Node_With.Odd--Chars"), "ff-probe-node-with-odd-chars");
  assert.equal(dnsLabel("---", 10).length, 6);
  const long = probePodManifest({ runId: "r", node: a, image: IMAGE, tolerate: [], side: "local" });
  const nodeLabel = long.metadata.labels!["flyingfish.io/node"];
  assert.ok(nodeLabel.length <= 63);
  assert.equal(long.metadata.annotations!["flyingfish.io/node"], a);
});

Deno.test("namespaceManifest: labelled for cleanup, enforcing restricted, annotated with the expiry", () => {
  const ns = namespaceManifest("ab12cd34", new Date("2026-12-01T14:00:00.000Z"));
  assert.equal(ns.metadata.name, "flyingfish-probe-ab12cd34");
  assert.deepEqual(ns.metadata.labels, {
    "app.kubernetes.io/managed-by": "flyingfish",
    "flyingfish.io/run-id": "ab12cd34",
    "pod-security.kubernetes.io/enforce": "restricted",
    "pod-security.kubernetes.io/enforce-version": "latest",
  });
  assert.deepEqual(ns.metadata.annotations, { "flyingfish.io/expires-at": "2026-12-01T14:00:00Z" });
});

Deno.test("serviceManifest selects the run's probe pods on 8080/TCP http", () => {
  const svc = serviceManifest("ab12cd34");
  const pod = probePodManifest({ runId: "ab12cd34", node: "n", image: IMAGE, tolerate: [], side: "local" });
  const spec: Json = svc.spec;
  for (const [k, v] of Object.entries(spec.selector)) assert.equal(pod.metadata.labels![k], v);
  assert.deepEqual(spec.ports, [{ name: "http", port: 8080, targetPort: 8080, protocol: "TCP" }]);
  assert.equal(svc.metadata.labels!["flyingfish.io/run-id"], "ab12cd34");
});

Deno.test("namespaceOffloadingManifest offloads to the one peer with Liqo's defaults", () => {
  const no = namespaceOffloadingManifest("milan-8d1f03", "ab12cd34");
  assert.equal(no.apiVersion, "offloading.liqo.io/v1beta1");
  assert.equal(no.metadata.name, "offloading");
  assert.equal(no.metadata.namespace, "flyingfish-probe-ab12cd34");
  assert.deepEqual(no.spec, {
    namespaceMappingStrategy: "DefaultName",
    podOffloadingStrategy: "LocalAndRemote",
    clusterSelector: {
      nodeSelectorTerms: [{
        matchExpressions: [{ key: "liqo.io/remote-cluster-id", operator: "In", values: ["milan-8d1f03"] }],
      }],
    },
  });
});

Deno.test("offloadedPodManifest: pinned to the virtual node, tolerating its taint, restricted, spread hook applied", () => {
  const pod = offloadedPodManifest({
    runId: "ab12cd34",
    image: IMAGE,
    virtualNode: "milan-8d1f03",
    index: 1,
    spread: {
      labels: { spread: "x" },
      annotations: { "example.io/a": "b" },
      podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] },
    },
  });
  assert.deepEqual(restrictedViolations(pod), []);
  const spec: Json = pod.spec;
  assert.equal(pod.metadata.name, "ff-probe-milan-8d1f03-1");
  assert.equal(pod.metadata.labels!.spread, "x");
  assert.equal(pod.metadata.annotations!["example.io/a"], "b");
  assert.deepEqual(spec.tolerations, [{
    key: "virtual-node.liqo.io/not-allowed",
    operator: "Exists",
    effect: "NoExecute",
  }]);
  assert.equal(
    spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]
      .matchExpressions[0]
      .values[0],
    "milan-8d1f03",
  );
  assert.deepEqual(spec.affinity.podAntiAffinity, { preferredDuringSchedulingIgnoredDuringExecution: [] });
});

Deno.test("every pod template also passes the fake API server's Pod Security and validation (a second reading)", () => {
  const pods = [
    probePodManifest({
      runId: "ab12cd34",
      node: "rome-worker-1",
      image: IMAGE,
      tolerate: ["gpu"],
      side: "local",
    }),
    offloadedPodManifest({ runId: "ab12cd34", image: IMAGE, virtualNode: "milan-8d1f03", index: 0 }),
  ];
  for (const pod of pods) {
    assert.deepEqual(podSecurityViolations(pod, "restricted"), [], pod.metadata.name);
    assert.deepEqual(validate("Pod", pod), [], pod.metadata.name);
  }
  assert.deepEqual(validate("Service", serviceManifest("ab12cd34")), []);
  assert.deepEqual(validate("Namespace", namespaceManifest("ab12cd34", new Date())), []);
  assert.deepEqual(
    validate("NamespaceOffloading", namespaceOffloadingManifest("milan-8d1f03", "ab12cd34")),
    [],
  );
});

Deno.test("preflight --probe templates: restricted pods on the pod network, placed like the gateway; the UDP Service", () => {
  for (const role of ["echo", "client"] as const) {
    const pod = preflightPodManifest({
      runId: "abcd1234",
      role,
      image: IMAGE,
      udpPort: 51840,
      placement: {
        nodeSelector: { "node-role.kubernetes.io/gateway": "" },
        tolerations: [{ key: "gw", operator: "Exists" }],
      },
    }) as Json;
    assert.deepEqual(restrictedViolations(pod), [], role);
    assert.deepEqual(podSecurityViolations(pod, "restricted"), [], role);
    assert.deepEqual(validate("Pod", pod), [], role);
    assert.equal(pod.metadata.namespace, "flyingfish-preflight-abcd1234");
    assert.equal(pod.metadata.name, `ff-preflight-${role}`);
    assert.equal(pod.spec.hostNetwork, undefined, "the pod network, as Liqo's gateway pods");
    assert.deepEqual(pod.spec.containers[0].args, ["netexec", "--http-port=8080", "--udp-port=51840"]);
    assert.deepEqual(pod.spec.nodeSelector, { "node-role.kubernetes.io/gateway": "" });
    assert.deepEqual(pod.spec.tolerations, [{ key: "gw", operator: "Exists" }]);
    assert.equal(pod.metadata.labels["flyingfish.io/run-id"], "abcd1234");
  }
  const svc = preflightServiceManifest({
    runId: "abcd1234",
    type: "LoadBalancer",
    port: 51840,
    nodePort: 31840,
  }) as Json;
  assert.deepEqual(svc.spec.ports, [{
    name: "wireguard",
    port: 51840,
    targetPort: 51840,
    protocol: "UDP",
    nodePort: 31840,
  }]);
  assert.deepEqual(svc.spec.selector, {
    "flyingfish.io/run-id": "abcd1234",
    "flyingfish.io/preflight-role": "echo",
  });
  assert.equal(
    namespaceManifest("abcd1234", "2026-01-01T00:00:00Z", "preflight").metadata.name,
    "flyingfish-preflight-abcd1234",
  );
});
